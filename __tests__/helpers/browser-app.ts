/**
 * An app as a browser uses it, for the gate's browser tests: one page whose script loads an
 * image, calls the app's API with fetch() and XMLHttpRequest, opens a WebSocket and an SSE stream,
 * and writes what each got into the page; a form on it POSTs back. The app records every request
 * it gets (method, target, headers, body), upgrades included, and sets a cookie of its own, which
 * must come back untouched through the gate.
 */
import { createHash } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export interface SeenByApp {
  method: string
  target: string
  headers: IncomingHttpHeaders
  body: string
}

export interface BrowserApp {
  port: number
  seen: SeenByApp[]
  close(): Promise<void>
}

/** The app's own cookie, set with the page: the gate must leave it to the app. */
export const APP_COOKIE = 'app-session=s1'

// Each part reports once into #results as `name=ok`; the test waits until all six are there.
const SCRIPT = `
const reported = new Set()
const report = (name, ok) => {
  if (reported.has(name)) return
  reported.add(name)
  const line = document.createElement('li')
  line.textContent = name + '=' + (ok ? 'ok' : 'failed')
  document.getElementById('results').append(line)
}
const image = new Image()
image.onload = () => report('image', image.naturalWidth === 1)
image.onerror = () => report('image', false)
image.src = '/logo.gif'
fetch('/api/fetch?from=fetch', { headers: { 'X-App': 'fetch' } })
  .then(r => r.json())
  .then(body => report('fetch', body.ok === 'fetch'), () => report('fetch', false))
const xhr = new XMLHttpRequest()
xhr.open('GET', '/api/xhr')
xhr.onload = () => report('xhr', xhr.status === 200 && JSON.parse(xhr.responseText).ok === 'xhr')
xhr.onerror = () => report('xhr', false)
xhr.send()
const socket = new WebSocket('ws://' + location.host + '/ws')
socket.onmessage = event => { report('websocket', event.data === 'hello over ws'); socket.close() }
socket.onerror = () => report('websocket', false)
const events = new EventSource('/events')
events.onmessage = event => { report('sse', event.data === 'hello over sse'); events.close() }
events.onerror = () => { report('sse', false); events.close() }
report('script', true)
`

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>gated app</title><link rel="icon" href="data:,"><script src="/app.js" defer></script></head>
<body><h1>gated app</h1><ul id="results"></ul>
<form id="form" method="POST" action="/submit"><input name="note" value="from the form"><button id="send">Send</button></form>
</body></html>
`

// A 1×1 transparent GIF.
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64')

export async function startBrowserApp(): Promise<BrowserApp> {
  const seen: SeenByApp[] = []
  const sockets = new Set<Socket>()
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = []
    for await (const part of req) parts.push(part as Buffer)
    seen.push(record(req, Buffer.concat(parts).toString('utf8')))
    const path = req.url!.split('?')[0]
    if (path === '/') {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'set-cookie': `${APP_COOKIE}; Path=/; SameSite=Lax`
      })
      res.end(PAGE)
    } else if (path === '/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' })
      res.end(SCRIPT)
    } else if (path === '/logo.gif') {
      res.writeHead(200, { 'content-type': 'image/gif' })
      res.end(GIF)
    } else if (path === '/api/fetch' || path === '/api/xhr') {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ ok: path.slice(5) }))
    } else if (path === '/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' })
      res.end('data: hello over sse\n\n')
    } else if (path === '/submit' && req.method === 'POST') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      res.end('<!doctype html><title>submitted</title><p id="done">submitted</p>\n')
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' })
      res.end('not found\n')
    }
  })
  server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    seen.push(record(req, ''))
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => undefined)
    const key = req.headers['sec-websocket-key'] ?? ''
    const accept = createHash('sha1')
      .update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest('base64')
    const text = Buffer.from('hello over ws')
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        `Sec-WebSocket-Accept: ${accept}\r\n\r\n`
    )
    // One unmasked text frame; the browser then closes, and so does this side.
    socket.write(Buffer.concat([Buffer.from([0x81, text.length]), text]))
    socket.on('data', () => socket.end())
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>(resolve => {
        server.close(() => resolve())
        server.closeAllConnections()
        for (const socket of sockets) socket.destroy()
      })
  }
}

function record(req: IncomingMessage, body: string): SeenByApp {
  return { method: req.method!, target: req.url!, headers: req.headers, body }
}
