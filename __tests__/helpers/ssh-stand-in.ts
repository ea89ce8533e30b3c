/**
 * Small tunnel servers for the keeper's tests, each with one misbehaviour: ssh2 servers that
 * accept or refuse logins as told and drop connections, a relay that can switch servers, and a
 * fake clock that moves only when the keeper sleeps.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ssh2 from 'ssh2'
import { ed25519KeyPair } from '../../service/__tests__/helpers/ed25519.js'
import { fingerprintOf } from '../../src/core/text/fingerprint.js'
import { Keeper } from '../../src/core/tunnel/keeper/keeper.js'
import type { KeeperIo } from '../../src/core/tunnel/keeper/io.js'
import type { HttpHooks } from '../../src/core/tunnel/keeper/http/hooks.js'
import type { KeeperConfig, KeeperReport, KeeperStats } from '../../src/core/tunnel/protocol.js'

const cleanups: Array<() => void | Promise<void>> = []

/** Stops every keeper, server and directory these helpers made; call it in afterEach. */
export async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
}

export interface HostKey {
  private: string
  /** The public key blob and its fingerprint, as a pin names it. */
  blob: Buffer
  fingerprint: string
  type: string
}

export function hostKey(type: 'ed25519' | 'rsa' | 'ecdsa'): HostKey {
  const pair =
    type === 'rsa'
      ? ssh2.utils.generateKeyPairSync('rsa', { bits: 2048 })
      : type === 'ecdsa'
        ? ssh2.utils.generateKeyPairSync('ecdsa', { bits: 256 })
        : ed25519KeyPair()
  const blob = Buffer.from(pair.public.trim().split(/\s+/)[1], 'base64')
  return {
    private: pair.private,
    blob,
    fingerprint: fingerprintOf(blob),
    type: pair.public.split(' ')[0]
  }
}

export interface StandIn {
  port: number
  /** Each password login attempt, in order, with what the server answered. */
  logins: Array<{ password: string; accepted: boolean }>
  /** Connections that completed their key exchange. */
  handshakes: number
}

export interface StandInOptions {
  hostKeys: HostKey[]
  /** Whether login number `n` (1, 2, …) is accepted; default: every one. */
  accept?(n: number): boolean
  /** Called with each connection once its forwards are accepted (drop it, open channels, …). */
  forwarded?(connection: ssh2.Connection, n: number): void
  /** Ends each connection right after its key exchange, before any login. */
  dropAfterHandshake?: boolean
}

export async function startStandIn(options: StandInOptions): Promise<StandIn> {
  const standIn: StandIn = { port: 0, logins: [], handshakes: 0 }
  const connections = new Set<ssh2.Connection>()
  const server = new ssh2.Server({ hostKeys: options.hostKeys.map(key => key.private) }, conn => {
    connections.add(conn)
    conn.on('close', () => connections.delete(conn))
    conn.on('error', () => undefined)
    conn.on('handshake', () => {
      standIn.handshakes += 1
      if (options.dropAfterHandshake) conn.end()
    })
    let login = 0
    conn.on('authentication', ctx => {
      if (ctx.method !== 'password') return ctx.reject(['password'])
      const accepted = options.accept?.(standIn.logins.length + 1) ?? true
      standIn.logins.push({ password: ctx.password, accepted })
      login = standIn.logins.length
      if (accepted) ctx.accept()
      else ctx.reject(['password'])
    })
    conn.on('request', (accept, _reject, name) => {
      if (name !== 'tcpip-forward') return
      accept?.()
      setImmediate(() => options.forwarded?.(conn, login))
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(async () => {
    for (const conn of connections) conn.end()
    await new Promise(resolve => server.close(resolve))
  })
  standIn.port = (server.address() as AddressInfo).port
  return standIn
}

/** A server that speaks SSH only to say goodbye: a DISCONNECT with `text`, before any kex. */
export async function startDisconnectingServer(text: string): Promise<number> {
  const sockets = new Set<Socket>()
  const server = createServer(socket => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => undefined)
    socket.write('SSH-2.0-OpenSSH_9.6\r\n')
    const description = Buffer.from(text, 'utf8')
    const payload = Buffer.alloc(1 + 4 + 4 + description.length + 4)
    payload[0] = 1 // SSH_MSG_DISCONNECT
    payload.writeUInt32BE(2, 1) // protocol error
    payload.writeUInt32BE(description.length, 5)
    description.copy(payload, 9)
    payload.writeUInt32BE(0, 9 + description.length) // language tag: empty
    // Unencrypted binary packet: length, padding length, payload, 4 to 11 bytes of padding.
    let padding = 8 - ((4 + 1 + payload.length) % 8)
    if (padding < 4) padding += 8
    const packet = Buffer.alloc(4 + 1 + payload.length + padding)
    packet.writeUInt32BE(1 + payload.length + padding, 0)
    packet[4] = padding
    payload.copy(packet, 5)
    socket.end(packet)
  })
  return listen(server, () => {
    for (const socket of sockets) socket.destroy()
  })
}

/** A TCP relay; to() picks the server the next connections reach. */
export async function startRelay(
  firstPort: number
): Promise<{ port: number; to(port: number): void; connections: number }> {
  let target = firstPort
  const relay = { port: 0, to: (port: number) => (target = port), connections: 0 }
  const sockets = new Set<Socket>()
  const server = createServer(socket => {
    relay.connections += 1
    const upstream = connect(target, '127.0.0.1')
    for (const s of [socket, upstream]) {
      sockets.add(s)
      s.on('error', () => undefined)
      s.on('close', () => sockets.delete(s))
    }
    socket.pipe(upstream).pipe(socket)
    socket.on('close', () => upstream.destroy())
    upstream.on('close', () => socket.destroy())
  })
  relay.port = await listen(server, () => {
    for (const s of sockets) s.destroy()
  })
  return relay
}

async function listen(server: Server, beforeClose?: () => void): Promise<number> {
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(async () => {
    beforeClose?.()
    await new Promise(resolve => server.close(resolve))
  })
  return (server.address() as AddressInfo).port
}

/** A clock that moves only when the keeper sleeps: minutes of backoff pass in milliseconds. */
export function fakeClock(start = Date.parse('2026-01-01T00:00:00Z')) {
  let now = start
  return {
    now: () => now,
    advance: (ms: number) => (now += ms),
    sleep: (ms: number) => {
      now += ms
      return new Promise<void>(resolve => setImmediate(resolve))
    }
  }
}

export interface RunningKeeper {
  keeper: Keeper
  config: KeeperConfig
  report: Promise<KeeperReport>
  done: Promise<KeeperStats>
  log(): string
  stats(): KeeperStats
}

/** A keeper against a stand-in on `port`, stopped by cleanUp(). */
export function runKeeper(
  port: number,
  overrides: Partial<KeeperConfig> = {},
  io: Partial<KeeperIo> = {},
  http?: HttpHooks
): RunningKeeper {
  const dir = mkdtempSync(join(tmpdir(), 'keeper-stand-in-'))
  const config: KeeperConfig = {
    host: '127.0.0.1',
    port,
    user: 'stand-in-user',
    token: 'tok_standin',
    entries: [{ name: 'web', host: '127.0.0.1', port: 9 }],
    hostKeyPins: [],
    attemptTimeoutMs: 5_000,
    maxAttempts: 1,
    logPath: join(dir, 'tunnel.log'),
    statsPath: join(dir, 'stats.json'),
    stopPath: join(dir, 'stop'),
    ...overrides
  }
  let reported: (report: KeeperReport) => void = () => undefined
  const report = new Promise<KeeperReport>(resolve => (reported = resolve))
  const keeper = new Keeper(
    config,
    {
      report: r => reported(r),
      now: () => Date.now(),
      random: () => 0,
      pid: 4343,
      ...io
    },
    http
  )
  const done = keeper.run()
  cleanups.push(async () => {
    keeper.stop()
    await done
    rmSync(dir, { recursive: true, force: true })
  })
  return {
    keeper,
    config,
    report,
    done,
    log: () => readFileSync(config.logPath, 'utf8'),
    stats: () => JSON.parse(readFileSync(config.statsPath, 'utf8')) as KeeperStats
  }
}

/** Polls `read` until `ok` (or 10 s). */
export async function eventually<T>(read: () => T, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const value = read()
    if (ok(value) || Date.now() > deadline) return value
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}
