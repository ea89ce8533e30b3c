/**
 * The front routes each request by its own Host, as the real muxer does: a keep-alive client (an
 * edge proxy) that sends requests for two tunnels over one connection reaches each tunnel's app.
 */
import { Agent, request } from 'node:http'
import { connect, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { startCredentialService, type RunningService } from '../server.js'
import { createFront } from '../tunnel/front.js'
import {
  forward,
  login,
  provision,
  serveWith,
  startNamedApp,
  type NamedApp
} from './helpers/tunnel-client.js'

let service: RunningService
let apps: NamedApp[]
let hosts: { a: string; b: string }

beforeAll(async () => {
  service = await startCredentialService({ tunnel: true })
  apps = [await startNamedApp('app A'), await startNamedApp('app B')]
  const names = []
  for (const app of apps) {
    const credential = await provision(service)
    const client = await login(service, credential)
    serveWith(client, app.port)
    await forward(client, 'web')
    names.push(`web-${credential.user}.localhost:${service.tunnel!.frontPort}`)
  }
  hosts = { a: names[0], b: names[1] }
})
afterAll(async () => {
  await service.close()
  await Promise.all(apps.map(app => app.close()))
})

function get(agent: Agent, host: string, path: string): Promise<{ body: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: service.tunnel!.frontPort, path, agent, headers: { host } },
      res => {
        let body = ''
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve({ body, socket: req.socket! }))
      }
    )
    req.on('error', reject)
    req.end()
  })
}

/** Sends `text` on one raw connection and reads until `count` complete answers arrived. */
function exchange(text: string | string[], count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(service.tunnel!.frontPort, '127.0.0.1')
    let received = ''
    // The complete answer bodies so far, each framed by its Content-Length.
    const bodies = (): string[] =>
      [...received.matchAll(/Content-Length: (\d+)\r\n(?:.*\r\n)*?\r\n/gi)]
        .map(match => {
          const start = match.index + match[0].length
          return received.length >= start + Number(match[1])
            ? received.slice(start, start + Number(match[1]))
            : undefined
        })
        .filter((body): body is string => body !== undefined)
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => {
      received += chunk
      const answers = bodies()
      if (answers.length === count) {
        socket.destroy()
        resolve(answers)
      }
    })
    socket.on('error', reject)
    const parts = typeof text === 'string' ? [text] : text
    // Sequential: each part waits for the previous answer; one string is sent in one write.
    let sent = 0
    const sendNext = (): void => {
      if (sent < parts.length) socket.write(parts[sent++])
    }
    socket.on('data', () => {
      if (bodies().length >= sent) sendNext()
    })
    socket.once('connect', sendNext)
  })
}

const head = (host: string, path: string) => `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`

describe('one kept-alive connection, requests for two tunnels', () => {
  it('through an http.Agent with keepAlive and one socket: each request reaches its own app', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const answers = []
      const sockets = new Set<Socket>()
      for (const [index, host] of [hosts.a, hosts.b, hosts.a, hosts.b].entries()) {
        const answer = await get(agent, host, `/${index}`)
        answers.push(answer.body)
        sockets.add(answer.socket)
      }
      expect(sockets.size).toBe(1)
      expect(answers).toEqual(['app A: GET /0', 'app B: GET /1', 'app A: GET /2', 'app B: GET /3'])
    } finally {
      agent.destroy()
    }
  })

  it('on a raw socket, one request after another', async () => {
    const answers = await exchange(
      [head(hosts.b, '/first'), head(hosts.a, '/second'), head(hosts.b, '/third')],
      3
    )
    expect(answers).toEqual(['app B: GET /first', 'app A: GET /second', 'app B: GET /third'])
  })

  it('on a raw socket, pipelined in one write: in order, each to its own app', async () => {
    const answers = await exchange(
      head(hosts.a, '/one') + head(hosts.b, '/two') + head(hosts.a, '/three'),
      3
    )
    expect(answers).toEqual(['app A: GET /one', 'app B: GET /two', 'app A: GET /three'])
  })
})

describe('what the front still does', () => {
  it('refuses a request head above 16 KiB with 431', async () => {
    const big = `GET / HTTP/1.1\r\nHost: ${hosts.a}\r\nX-Big: ${'x'.repeat(17 * 1024)}\r\n\r\n`
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(service.tunnel!.frontPort, '127.0.0.1', () => socket.write(big))
      let received = ''
      socket.setEncoding('latin1').on('data', (chunk: string) => (received += chunk))
      socket.on('close', () => resolve(received))
      socket.on('error', reject)
    })
    expect(answer).toMatch(/^HTTP\/1\.1 431 /)
  })

  it('answers 408 and closes a connection whose request head does not complete in time', async () => {
    const front = createFront(() => undefined, 300)
    await new Promise<void>(resolve => front.server.listen(0, '127.0.0.1', resolve))
    try {
      const port = (front.server.address() as AddressInfo).port
      const started = Date.now()
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () =>
          socket.write(`GET / HTTP/1.1\r\nHost: ${hosts.a}\r\nX-Slow: 1`)
        )
        let received = ''
        socket.setEncoding('latin1').on('data', (chunk: string) => (received += chunk))
        socket.on('close', () => resolve(received))
        socket.on('error', reject)
      })
      expect(answer).toMatch(/^HTTP\/1\.1 408 /)
      expect(Date.now() - started).toBeGreaterThanOrEqual(300)
    } finally {
      front.destroyConnections()
      front.server.close()
    }
  })

  it('passes a WebSocket-style upgrade and then raw bytes both ways', async () => {
    const upgradeApp = await startNamedApp('upgrade app')
    const upgraded: Socket[] = []
    upgradeApp.server.on('upgrade', (_req, socket: Socket) => {
      upgraded.push(socket)
      socket.write(
        'HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n'
      )
      socket.on('data', (chunk: Buffer) => socket.write(chunk.toString('latin1').toUpperCase()))
    })
    const credential = await provision(service)
    const client = await login(service, credential)
    serveWith(client, upgradeApp.port)
    await forward(client, 'ws')
    try {
      const host = `ws-${credential.user}.localhost`
      const received = await new Promise<string>((resolve, reject) => {
        const socket = connect(service.tunnel!.frontPort, '127.0.0.1', () =>
          socket.write(
            `GET /socket HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n`
          )
        )
        let text = ''
        socket.setEncoding('latin1').on('data', (chunk: string) => {
          text += chunk
          if (text.includes('\r\n\r\n') && !text.includes('HELLO')) socket.write('hello')
          if (text.includes('HELLO')) {
            socket.destroy()
            resolve(text)
          }
        })
        socket.on('error', reject)
      })
      expect(received).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/)
      expect(received.endsWith('\r\n\r\nHELLO')).toBe(true)
    } finally {
      client.end()
      // closeAllConnections() leaves upgraded sockets to their owner.
      for (const socket of upgraded) socket.destroy()
      await upgradeApp.close()
    }
  })
})
