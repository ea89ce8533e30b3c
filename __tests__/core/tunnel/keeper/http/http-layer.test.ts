/**
 * The tunnel process's HTTP layer keeps what a raw pipe keeps: keep-alive and pipelining,
 * chunked bodies byte for byte, 100-continue, WebSocket (raw after 101), streamed answers,
 * large downloads, and the Host header. Real sockets: a local app, the service's tunnel
 * stand-in and its front, and a keeper with HTTP hooks in this process.
 */
import { randomBytes } from 'node:crypto'
import { request } from 'node:http'
import { cleanUp } from '../../../../helpers/ssh-stand-in.js'
import {
  BIG,
  count,
  maskedFrame,
  openSocket,
  sha256,
  startHttpTunnel,
  startTestApp,
  type HttpTunnel,
  type TestApp
} from '../../../../helpers/http-tunnel.js'

let app: TestApp
let tunnel: HttpTunnel

beforeAll(async () => {
  app = await startTestApp()
  tunnel = await startHttpTunnel([{ name: 'web', host: '127.0.0.1', port: app.port }])
})
afterAll(async () => {
  await cleanUp()
  await app.close()
  await tunnel.service.close()
})

const get = (path: string, host = tunnel.hostFor('web')) =>
  `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`

describe('the HTTP layer', () => {
  it('answers two pipelined requests sent in one write, in order, on one app connection', async () => {
    const client = await openSocket(tunnel.frontPort)
    client.socket.write(get('/first') + get('/second'))
    const received = await client.until(bytes => count(bytes, 'HTTP/1.1 200') === 2)
    const text = received.toString('latin1')
    expect(text.indexOf('GET /first')).toBeGreaterThan(0)
    expect(text.indexOf('GET /second')).toBeGreaterThan(text.indexOf('GET /first'))
    // Keep-alive: a third request later on the same connection reaches the same app socket.
    client.socket.write(get('/third'))
    await client.until(bytes => count(bytes, 'HTTP/1.1 200') === 3)
    const ports = app.seen.filter(s => ['/first', '/second', '/third'].includes(s.url))
    expect(new Set(ports.map(s => s.socketPort)).size).toBe(1)
    expect(tunnel.records.slice(-3).map(r => [r.target, r.status])).toEqual([
      ['/first', 200],
      ['/second', 200],
      ['/third', 200]
    ])
    client.socket.destroy()
  })

  it('passes a chunked request body and a chunked answer byte for byte', async () => {
    const body = randomBytes(300_000)
    const answer = await new Promise<{ bytes: Buffer; chunked: boolean }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: tunnel.frontPort,
          method: 'POST',
          path: '/echo',
          headers: { host: tunnel.hostFor('web') },
          agent: false
        },
        res => {
          const parts: Buffer[] = []
          res.on('data', (part: Buffer) => parts.push(part))
          res.on('end', () =>
            resolve({
              bytes: Buffer.concat(parts),
              chunked: res.headers['transfer-encoding'] === 'chunked'
            })
          )
        }
      )
      req.on('error', reject)
      // Several writes and no length: the request goes out chunked.
      for (let at = 0; at < body.length; at += 70_000) req.write(body.subarray(at, at + 70_000))
      req.end()
    })
    expect(answer.chunked).toBe(true)
    expect(sha256(answer.bytes)).toBe(sha256(body))
  })

  it('passes 100 Continue before the body is sent', async () => {
    const client = await openSocket(tunnel.frontPort)
    client.socket.write(
      `POST /continue HTTP/1.1\r\nHost: ${tunnel.hostFor('web')}\r\n` +
        'Content-Length: 5\r\nExpect: 100-continue\r\n\r\n'
    )
    await client.until(bytes => bytes.toString('latin1').startsWith('HTTP/1.1 100 Continue'))
    client.socket.write('hello')
    const received = await client.until(bytes => bytes.includes('body=5'))
    expect(received.toString('latin1')).toContain('HTTP/1.1 200')
    client.socket.destroy()
  })

  it('switches to raw bytes both ways after a WebSocket handshake', async () => {
    const client = await openSocket(tunnel.frontPort)
    client.socket.write(
      `GET /socket HTTP/1.1\r\nHost: ${tunnel.hostFor('web')}\r\nUpgrade: websocket\r\n` +
        'Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n'
    )
    await client.until(bytes => bytes.includes('\r\n\r\n'))
    expect(client.received().toString('latin1')).toMatch(/^HTTP\/1\.1 101 /)
    const headLength = client.received().indexOf('\r\n\r\n') + 4
    const payloads = [Buffer.from('one'), randomBytes(100), Buffer.from('GET / HTTP/1.1\r\n\r\n')]
    // Frames that look like HTTP go through untouched too: after 101 nothing is parsed.
    client.socket.write(Buffer.concat(payloads.map(maskedFrame)))
    const expected = Buffer.concat(
      payloads.map(p => Buffer.concat([Buffer.from([0x82, p.length]), p]))
    )
    const received = await client.until(bytes => bytes.length >= headLength + expected.length)
    expect(received.subarray(headLength)).toEqual(expected)
    client.socket.destroy()
  })

  it('passes the first server-sent event before the app ends the answer', async () => {
    const client = await openSocket(tunnel.frontPort)
    client.socket.write(get('/sse'))
    const first = await client.until(bytes => bytes.includes('data: first'))
    expect(first.toString('latin1')).not.toContain('data: last')
    app.endEvents()
    await client.until(bytes => bytes.includes('data: last'))
    client.socket.destroy()
  })

  it('delivers a 50 MiB download intact to a reader that starts late', async () => {
    const digest = await new Promise<string>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: tunnel.frontPort,
          path: '/big',
          headers: { host: tunnel.hostFor('web') },
          agent: false
        },
        res => {
          const parts: Buffer[] = []
          // A slow reader first: the SSH window fills and the layer must hold the app back.
          res.pause()
          setTimeout(() => res.resume(), 500)
          res.on('data', (part: Buffer) => parts.push(part))
          res.on('end', () => resolve(sha256(Buffer.concat(parts))))
          res.on('error', reject)
        }
      )
      req.on('error', reject)
      req.end()
    })
    expect(digest).toBe(sha256(BIG))
  }, 120_000)

  it('passes the Host header exactly as sent', async () => {
    const host = tunnel.hostFor('web').replace('web-', 'WeB-')
    const client = await openSocket(tunnel.frontPort)
    client.socket.write(get('/host-check', host))
    await client.until(bytes => bytes.includes('/host-check'))
    expect(app.seen.find(s => s.url === '/host-check')?.host).toBe(host)
    client.socket.destroy()
  })
})
