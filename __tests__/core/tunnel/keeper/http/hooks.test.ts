/**
 * What the HTTP layer tells the request log, and how the gate and the proof answer through it:
 * the record of each request (method, target, status, bytes, client address, outcome), bytes
 * that are not HTTP piped raw, the 502 page when the app is down, own answers and rewritten
 * targets. Real sockets, as in http-layer.test.ts.
 */
import { createServer, type AddressInfo, type Server } from 'node:net'
import { cleanUp } from '../../../../helpers/ssh-stand-in.js'
import {
  openSocket,
  startHttpTunnel,
  startTestApp,
  type HttpTunnel,
  type TestApp
} from '../../../../helpers/http-tunnel.js'
import type {
  HttpHooks,
  RequestDecision,
  RequestHead
} from '../../../../../src/core/tunnel/keeper/http/hooks.js'

let app: TestApp
let echo: Server
let echoed: Buffer[]
let closedPort: number
let decide: (request: RequestHead) => RequestDecision
const tunnels: HttpTunnel[] = []

async function listen(server: Server): Promise<number> {
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

beforeAll(async () => {
  app = await startTestApp()
  echoed = []
  echo = createServer(socket => {
    socket.on('data', (chunk: Buffer) => {
      echoed.push(chunk)
      socket.write(chunk)
    })
    socket.on('error', () => undefined)
  })
  const closed = createServer()
  closedPort = await listen(closed)
  closed.close()
})
beforeEach(() => (decide = () => 'forward'))
afterEach(cleanUp)
afterAll(async () => {
  await app.close()
  echo.close()
  for (const tunnel of tunnels) await tunnel.service.close()
})

async function start(hooks: Partial<HttpHooks> | 'none' = {}): Promise<HttpTunnel> {
  const echoPort = echo.listening ? (echo.address() as AddressInfo).port : await listen(echo)
  const tunnel = await startHttpTunnel(
    [
      { name: 'web', host: '127.0.0.1', port: app.port },
      { name: 'raw', host: '127.0.0.1', port: echoPort },
      { name: 'gone', host: '127.0.0.1', port: closedPort }
    ],
    hooks === 'none' ? hooks : { decide: request => decide(request), ...hooks }
  )
  tunnels.push(tunnel)
  return tunnel
}

/**
 * Sends `text` (HOST: the entry's host) on a new connection; resolves once it closes. On the
 * entry's raw port, not the front: these are the keeper's own bytes and connection rules, and the
 * front, a proxy like the real server's, re-serialises requests and keeps its client connection.
 */
async function exchange(tunnel: HttpTunnel, text: string, name = 'web') {
  const client = await openSocket(await tunnel.service.tunnel!.rawPort(name, tunnel.user))
  const localPort = client.socket.localPort
  // Written, not ended: the client keeps its half open, and the far side closes when done.
  client.socket.write(text.replaceAll('HOST', tunnel.hostFor(name)))
  await client.closed
  return { received: client.received(), localPort }
}

describe('the HTTP layer records', () => {
  it('each request with its method, target, status, bytes, client address and outcome', async () => {
    const tunnel = await start()
    const sent =
      'POST /form?x=1 HTTP/1.1\r\nHost: HOST\r\nContent-Length: 3\r\nConnection: close\r\n\r\na=1'
    const { received, localPort } = await exchange(tunnel, sent)
    expect(received.toString('latin1')).toContain('POST /form?x=1')
    expect(tunnel.records).toEqual([
      expect.objectContaining({
        entry: 'web',
        client: `127.0.0.1:${localPort}`,
        method: 'POST',
        target: '/form?x=1',
        httpVersion: 'HTTP/1.1',
        status: 200,
        bytesIn: sent.replace('HOST', tunnel.hostFor('web')).length,
        bytesOut: received.length,
        outcome: 'forwarded'
      })
    ])
    const [record] = tunnel.records
    expect(record.requestHeaders).toContainEqual(['Host', tunnel.hostFor('web')])
    expect(record.responseHeaders).toContainEqual(['content-type', 'text/plain'])
    expect(record.requestBody).toBeUndefined()
  })

  it('pipes bytes that are not HTTP raw through a raw port, recorded as not-http', async () => {
    const tunnel = await start()
    const port = await tunnel.service.tunnel!.rawPort('raw', tunnel.user)
    const client = await openSocket(port)
    const bytes = Buffer.from([0x16, 0x03, 0x01, 0x00, 0xff, 0x0d, 0x0a, 0x00])
    client.socket.write(bytes)
    expect(await client.until(received => received.length >= bytes.length)).toEqual(bytes)
    client.socket.destroy()
    expect(tunnel.records).toEqual([
      expect.objectContaining({ entry: 'raw', method: '', outcome: 'not-http', bytesIn: 8 })
    ])
  })

  it('answers 502 with a page naming the entry and its address when the app is down', async () => {
    const tunnel = await start()
    const { received } = await exchange(tunnel, 'GET /x HTTP/1.1\r\nHost: HOST\r\n\r\n', 'gone')
    const text = received.toString('latin1')
    expect(text).toMatch(/^HTTP\/1\.1 502 /)
    expect(text).toContain('<code>gone</code>')
    expect(text).toContain(`127.0.0.1:${closedPort}`)
    expect(tunnel.records).toEqual([
      expect.objectContaining({ entry: 'gone', target: '/x', status: 502, outcome: 'unreachable' })
    ])
  })

  it('nothing on the raw path, which still answers the 502 page when the app is down', async () => {
    const tunnel = await start('none')
    const { received } = await exchange(tunnel, 'GET /x HTTP/1.1\r\nHost: HOST\r\n\r\n', 'gone')
    const text = received.toString('latin1')
    expect(text).toMatch(/^HTTP\/1\.1 502 /)
    expect(text).toContain('<code>gone</code>')
    expect(tunnel.records).toEqual([])
    // The raw path still pipes: an answer from the app, and still nothing recorded.
    const ok = await exchange(tunnel, 'GET /y HTTP/1.1\r\nHost: HOST\r\nConnection: close\r\n\r\n')
    expect(ok.received.toString('latin1')).toContain('GET /y')
    expect(tunnel.records).toEqual([])
  })

  it('keeps the first bytes of each body when asked, and says it cut them', async () => {
    const tunnel = await start({ captureBodyBytes: 4 })
    await exchange(
      tunnel,
      'POST /cut HTTP/1.1\r\nHost: HOST\r\nContent-Length: 6\r\nConnection: close\r\n\r\nabcdef'
    )
    const [record] = tunnel.records
    expect(record.requestBody).toEqual(Buffer.from('abcd'))
    expect(record.responseBody).toEqual(Buffer.from('POST'))
    expect(record.bodyTruncated).toEqual({ request: true, response: true })
  })
})

describe('the hooks of the gate and the proof', () => {
  it('answer a request themselves without the app seeing it', async () => {
    const tunnel = await start()
    decide = request =>
      request.target === '/refuse'
        ? {
            answer: { status: 401, headers: [['WWW-Authenticate', 'Basic realm="tunnel"']] },
            outcome: 'refused'
          }
        : 'forward'
    const before = app.seen.length
    const { received } = await exchange(
      tunnel,
      'GET /refuse HTTP/1.1\r\nHost: HOST\r\n\r\nGET /after HTTP/1.1\r\nHost: HOST\r\n\r\n'
    )
    const text = received.toString('latin1')
    expect(text).toMatch(/^HTTP\/1\.1 401 /)
    expect(text).toContain('WWW-Authenticate: Basic realm="tunnel"')
    // The connection closes after an own answer: the request behind it never reaches the app.
    expect(text).not.toContain('/after')
    expect(app.seen.length).toBe(before)
    expect(tunnel.records).toEqual([
      expect.objectContaining({ target: '/refuse', status: 401, outcome: 'refused' })
    ])
  })

  it('rewrite the target and drop fields, and the record holds what the app was sent', async () => {
    const tunnel = await start()
    decide = request =>
      request.target.startsWith('/s3cret/')
        ? { forward: { target: request.target.slice(7), removeHeaders: ['x-gate'] } }
        : 'forward'
    const { received } = await exchange(
      tunnel,
      'POST /s3cret/hook?a=1 HTTP/1.1\r\nHost: HOST\r\nX-Gate: s3cret\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi'
    )
    expect(received.toString('latin1')).toContain('POST /hook?a=1')
    expect(app.seen.at(-1)?.url).toBe('/hook?a=1')
    const [record] = tunnel.records
    expect(record.target).toBe('/hook?a=1')
    expect(JSON.stringify(record)).not.toContain('s3cret')
  })

  it('close bytes that are not HTTP unanswered when the gate is on', async () => {
    const tunnel = await start({ passNotHttp: false })
    const port = await tunnel.service.tunnel!.rawPort('raw', tunnel.user)
    const before = echoed.length
    const client = await openSocket(port)
    client.socket.write('GET  /admin HTTP/1.1\r\n\r\n')
    await client.closed
    expect(client.received().length).toBe(0)
    expect(echoed.length).toBe(before)
    expect(tunnel.records).toEqual([expect.objectContaining({ outcome: 'refused', method: '' })])
  })

  it('refuse with 400 a request the app could frame another way', async () => {
    const tunnel = await start()
    const before = app.seen.length
    const { received } = await exchange(
      tunnel,
      'POST / HTTP/1.1\r\nHost: HOST\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: HOST\r\n\r\n'
    )
    expect(received.toString('latin1')).toMatch(/^HTTP\/1\.1 400 /)
    expect(app.seen.length).toBe(before)
  })
})
