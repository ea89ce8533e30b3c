/**
 * The HTTP layer's tests: a keeper with HTTP hooks against the service's tunnel stand-in (real
 * SSH, real front), a local app with one route per behaviour, and clients that speak through the
 * front on plain sockets, so every byte sent and received is the test's own.
 */
import { createHash, randomBytes } from 'node:crypto'
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import {
  startCredentialService,
  type RunningService,
  type ServiceOptions
} from '../../service/server.js'
import type { HttpHooks } from '../../src/core/tunnel/keeper/http/hooks.js'
import type { KeeperIo } from '../../src/core/tunnel/keeper/io.js'
import type { ExposeEntry, KeeperConfig } from '../../src/core/tunnel/protocol.js'
import type { RequestRecord } from '../../src/core/tunnel/request-log/record.js'
import { runKeeper, type RunningKeeper } from './ssh-stand-in.js'

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

/** 50 MiB of random bytes, made once. */
export const BIG = randomBytes(50 * 1024 * 1024)

export interface TestApp {
  port: number
  server: Server
  /** Every request the app saw: method, url, Host, the app-side socket's client port, headers. */
  seen: Array<{
    method: string
    url: string
    host?: string
    socketPort?: number
    headers?: IncomingMessage['headers']
  }>
  /** Ends the server-sent event stream that /sse keeps open. */
  endEvents(): void
  close(): Promise<void>
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const part of req) parts.push(part as Buffer)
  return Buffer.concat(parts)
}

/** /host, /echo (body back, chunked), /sse (one event, then waits), /big (50 MiB), upgrades. */
export async function startTestApp(): Promise<TestApp> {
  let endEvents = () => undefined as void
  const seen: TestApp['seen'] = []
  const upgraded = new Set<Socket>()
  const server = createHttpServer(async (req, res) => {
    seen.push({
      method: req.method!,
      url: req.url!,
      host: req.headers.host,
      socketPort: req.socket.remotePort,
      headers: req.headers
    })
    if (req.url === '/echo') {
      const body = await readBody(req)
      res.writeHead(200, { 'content-type': 'application/octet-stream' })
      // Two writes without a length: the answer is chunked.
      res.write(body.subarray(0, 1000))
      res.end(body.subarray(1000))
    } else if (req.url === '/sse') {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('data: first\n\n')
      endEvents = () => res.end('data: last\n\n')
    } else if (req.url === '/big') {
      res.writeHead(200, { 'content-length': String(BIG.length) })
      res.end(BIG)
    } else {
      const body = await readBody(req)
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end(`${req.method} ${req.url} host=${req.headers.host} body=${body.length}`)
    }
  })
  // A WebSocket-like echo: 101, then every frame from the client comes back unmasked.
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    seen.push({ method: req.method!, url: req.url!, host: req.headers.host })
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'
    )
    let pending = head
    const onData = (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk])
      for (;;) {
        const frame = unmaskFrame(pending)
        if (frame === undefined) return
        pending = pending.subarray(frame.length)
        socket.write(Buffer.concat([Buffer.from([0x82, frame.payload.length]), frame.payload]))
      }
    }
    socket.on('data', onData)
    // The server keeps upgraded sockets half-open and out of closeAllConnections().
    socket.on('end', () => socket.end())
    upgraded.add(socket)
    socket.on('close', () => upgraded.delete(socket))
    if (head.length > 0) onData(Buffer.alloc(0))
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    server,
    seen,
    endEvents: () => endEvents(),
    close: () =>
      new Promise<void>(resolve => {
        server.close(() => resolve())
        server.closeAllConnections()
        for (const socket of upgraded) socket.destroy()
      })
  }
}

/** A masked binary WebSocket frame of a short payload (under 126 bytes), as a client sends it. */
export function maskedFrame(payload: Buffer): Buffer {
  const mask = randomBytes(4)
  const masked = Buffer.from(payload.map((byte, index) => byte ^ mask[index % 4]))
  return Buffer.concat([Buffer.from([0x82, 0x80 | payload.length]), mask, masked])
}

function unmaskFrame(bytes: Buffer): { payload: Buffer; length: number } | undefined {
  if (bytes.length < 6) return undefined
  const size = bytes[1] & 0x7f
  if (bytes.length < 6 + size) return undefined
  const mask = bytes.subarray(2, 6)
  const payload = Buffer.from(bytes.subarray(6, 6 + size).map((byte, i) => byte ^ mask[i % 4]))
  return { payload, length: 6 + size }
}

export interface HttpTunnel {
  service: RunningService
  user: string
  records: RequestRecord[]
  frontPort: number
  /** `Host` value that routes to entry `name`. */
  hostFor(name: string): string
  keeper: RunningKeeper
}

/** The tunnel login of a credential-provision answer, in the spec's shape or the product's. */
export const loginOf = (answer: Record<string, string>): { user: string; token: string } =>
  answer.tunnel_client_id === undefined
    ? { user: answer.tunnel_user, token: answer.token }
    : { user: answer.tunnel_client_id, token: answer.tunnel_client_secret }

/**
 * The stand-in, a credential, and a keeper with `hooks` (records collected), ready. With 'none'
 * the keeper builds its own hooks from its configuration (`config`: the gate, the proof, the
 * request log), and without any of them it pipes raw. `config` may be made from the tunnel's
 * user and front port, for settings that name the public hosts (the proof's requests).
 */
export async function startHttpTunnel(
  entries: ExposeEntry[],
  hooks: Partial<HttpHooks> | 'none' = {},
  config:
    | Partial<KeeperConfig>
    | ((at: { user: string; frontPort: number }) => Partial<KeeperConfig>) = {},
  io: Partial<KeeperIo> = {},
  // The stand-in's answer shape and public naming (answerShape, tunnelFqdn, ownership, …).
  serviceOptions: Omit<ServiceOptions, 'tunnel'> = {}
): Promise<HttpTunnel> {
  const service = await startCredentialService({
    ...serviceOptions,
    tunnel: { checkIntervalMs: 50 }
  })
  const response = await fetch(`${service.baseUrl}/credential-provision`, {
    method: 'POST',
    headers: { 'x-api-key': service.seed.provisionKey },
    body: JSON.stringify({ project: service.seed.project })
  })
  const { token, user } = loginOf((await response.json()) as Record<string, string>)
  const records: RequestRecord[] = []
  const tunnel = service.tunnel!
  const keeper = runKeeper(
    tunnel.port,
    {
      host: tunnel.host,
      user,
      token,
      entries,
      ...(typeof config === 'function' ? config({ user, frontPort: tunnel.frontPort }) : config)
    },
    { pid: 4242, ...io },
    hooks === 'none'
      ? undefined
      : { passNotHttp: true, record: record => records.push(record), ...hooks }
  )
  const report = await keeper.report
  if (report.type !== 'ready') throw new Error(`keeper not ready: ${JSON.stringify(report)}`)
  return {
    service,
    user,
    records,
    frontPort: tunnel.frontPort,
    hostFor: name => new URL(tunnel.urlFor(name, user)).host,
    keeper
  }
}

/** A plain socket to the front (or any port), with what it has received so far. */
export async function openSocket(port: number): Promise<{
  socket: Socket
  received(): Buffer
  /** Waits until what was received satisfies `ok` (or 10 s). */
  until(ok: (received: Buffer) => boolean): Promise<Buffer>
  closed: Promise<void>
}> {
  const socket = connect(port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  let received = Buffer.alloc(0)
  const waiters = new Set<() => void>()
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk])
    for (const waiter of waiters) waiter()
  })
  const closed = new Promise<void>(resolve => socket.once('close', () => resolve()))
  socket.on('error', () => undefined)
  return {
    socket,
    received: () => received,
    closed,
    until: ok =>
      new Promise<Buffer>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(
            new Error(`not received in 10 s; got: ${received.toString('latin1').slice(0, 500)}`)
          )
        }, 10_000)
        const check = () => {
          if (!ok(received)) return
          clearTimeout(timer)
          waiters.delete(check)
          resolve(received)
        }
        waiters.add(check)
        check()
      })
  }
}

/** Counts `needle` in `haystack`. */
export function count(haystack: Buffer, needle: string): number {
  return haystack.toString('latin1').split(needle).length - 1
}
