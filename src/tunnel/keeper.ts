/**
 * The tunnel keeper: one SSH connection to the tunnel server that holds a remote forward per
 * `expose` entry, pipes every connection the server opens on a forward to that entry's local
 * `HOST:PORT`, and reconnects when the connection drops. It runs in the detached process that
 * keeper-main.ts starts; the logic is here, apart from process wiring, so tests run it in-process.
 */
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { connect as connectTcp, type Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type { ClientChannel, ConnectConfig, TcpConnectionDetails } from 'ssh2'
// The client alone (see ssh2-client.d.ts): the keeper started in 50 ms instead of 80 here.
import Client from 'ssh2/lib/client.js'
import { keysAsKeyObjects } from './cipher-keys.js'
import { connectCoalesced } from './coalesced-socket.js'
import { fingerprintOf, type ExposeEntry } from './expose.js'
import { cachedLookup } from './lookup-cache.js'

/** What main sends the keeper over IPC (never on its command line or in its environment). */
export interface KeeperConfig {
  host: string
  port: number
  user: string
  /** The tunnel token: the SSH password (and the keyboard-interactive answer). */
  token?: string
  /** A private key file, for credentials that log in with a key instead of the token. */
  privateKeyPath?: string
  entries: ExposeEntry[]
  /** `SHA256:…` fingerprints to trust; empty: accept the server's key and report it. */
  hostKeyPins: string[]
  /** The credential's expiry: no reconnecting after it. */
  expiresAt?: string
  /** Bounds one attempt: connect, authenticate, and every forward accepted. */
  attemptTimeoutMs: number
  /** Attempts before the first ready; later reconnects go on while the credential is valid. */
  maxAttempts: number
  logPath: string
  statsPath: string
  /** The keeper stops when this file appears: a signal that works on every OS. */
  stopPath: string
}

export type FailureCause = 'host-key' | 'auth' | 'forward' | 'timeout' | 'connect'

/** What the keeper tells main, once: ready with every forward, or why not. */
export type KeeperReport =
  | { type: 'ready'; fingerprint: string }
  | { type: 'failed'; cause: FailureCause; detail: string; name?: string; fingerprint?: string }

/** Written to statsPath on change and at exit; the post step reads it. */
export interface KeeperStats {
  pid: number
  startedAt: string
  readyAt?: string
  /** Last time the keeper wrote this file (at least every few seconds while it runs). */
  updatedAt: string
  state: 'connecting' | 'ready' | 'reconnecting' | 'stopped' | 'ended'
  reconnects: number
  connections: number
  /** Bytes from the tunnel to the local apps (requests), and back (responses). */
  bytesIn: number
  bytesOut: number
  localErrors: number
  /** Set when the keeper ended on its own, before post asked it to stop. */
  endedAt?: string
  endReason?: string
}

export interface KeeperIo {
  report(report: KeeperReport): void
  now(): number
  random(): number
  pid: number
  /**
   * Collects the young generation now, when the process can (keeper-main.ts). V8 starts a young
   * collection when its own small objects fill the young space, not when the Buffers they hold
   * do: every 32 KiB SSH packet is three Buffers outside V8's heap (the data read, the packet,
   * its ciphertext) held by a few hundred bytes inside it, so between two collections tens of
   * megabytes of dead packets piled up, which the keeper's resident memory kept after the load.
   */
  collectYoung?(): void
}

/** Bytes through the tunnel between two young collections: see KeeperIo.collectYoung. */
export const COLLECT_EVERY_BYTES = 2 * 1024 * 1024

const FORWARD_PORT = 80
/** How often the stop file is looked for; stats are written at most once a second. */
const TICK_MS = 250
const HEARTBEAT_MS = 5_000
const KEEPALIVE_MS = 10_000

/** Delay before reconnect number `attempt` (1, 2, …): doubling from 1 s to 30 s, with ±25 % jitter. */
export function reconnectDelayMs(attempt: number, random: () => number): number {
  const base = Math.min(30_000, 1_000 * 2 ** Math.min(attempt - 1, 5))
  return Math.round(base * (0.75 + random() * 0.5))
}

interface Attempt {
  ok: boolean
  cause?: FailureCause
  detail?: string
  name?: string
}

export class Keeper {
  private readonly stats: KeeperStats
  private client: Client | undefined
  /** The host key trusted for this job: pinned, or the first one seen. */
  private fingerprint: string | undefined
  /** The key the server showed last, trusted or not: reported when the first start fails. */
  private seenFingerprint: string | undefined
  private stopping = false
  private wake: (() => void) | undefined
  private dirty = true
  private lastWrite = 0
  private readonly open = new Set<Duplex | Socket>()
  private readonly lookup = cachedLookup()
  private sinceCollect = 0

  constructor(
    private readonly config: KeeperConfig,
    private readonly io: KeeperIo
  ) {
    this.stats = {
      pid: io.pid,
      startedAt: this.iso(),
      updatedAt: this.iso(),
      state: 'connecting',
      reconnects: 0,
      connections: 0,
      bytesIn: 0,
      bytesOut: 0,
      localErrors: 0
    }
  }

  /** Connects, reports, and keeps the tunnel up until stopped or the credential is refused. */
  async run(): Promise<KeeperStats> {
    const names = this.config.entries.map(e => `${e.name} -> ${e.host}:${e.port}`).join(', ')
    this.log(
      `Starting: ${this.config.user}@${this.config.host}:${this.config.port}, forwards ${names}`
    )
    this.writeStats()
    const ticker = setInterval(() => this.tick(), TICK_MS)
    try {
      const first = await this.firstConnection()
      if (!first.ok) {
        this.io.report({
          type: 'failed',
          cause: first.cause!,
          detail: first.detail!,
          ...(first.name !== undefined && { name: first.name }),
          ...(this.seenFingerprint !== undefined && { fingerprint: this.seenFingerprint })
        })
        return this.end(`could not start: ${first.detail}`)
      }
      this.stats.readyAt = this.iso()
      this.setState('ready')
      this.io.report({ type: 'ready', fingerprint: this.fingerprint! })
      return await this.keepUp()
    } finally {
      clearInterval(ticker)
      this.writeStats()
    }
  }

  /** Asks the keeper to cancel its forwards and leave, as the stop file does. */
  stop(): void {
    if (this.stopping) return
    this.stopping = true
    this.log('Stop requested')
    this.wake?.()
    const client = this.client
    if (client === undefined) return
    try {
      for (const entry of this.config.entries) {
        client.unforwardIn(entry.name, FORWARD_PORT, () => undefined)
      }
    } catch {
      // "Not connected": the connection dropped and no new one is up; nothing to cancel.
    }
    client.end()
  }

  /** Records an unexpected error as the keeper's end, so post can say when and why. */
  crashed(error: Error): void {
    this.end(`the tunnel process crashed: ${error.message}`)
  }

  private async firstConnection(): Promise<Attempt> {
    let last: Attempt = { ok: false, cause: 'connect', detail: 'no attempt was made' }
    for (let attempt = 1; attempt <= this.config.maxAttempts; attempt++) {
      last = await this.connectOnce()
      if (last.ok || this.stopping) return last
      const final = attempt === this.config.maxAttempts || !isRetryable(last.cause!)
      this.log(`Attempt ${attempt} of ${this.config.maxAttempts} failed: ${last.detail}`)
      if (final) return last
      await this.sleep(reconnectDelayMs(attempt, this.io.random))
    }
    return last
  }

  /** After the first ready: reconnect whenever the connection drops, until told to stop. */
  private async keepUp(): Promise<KeeperStats> {
    for (;;) {
      await this.closed()
      if (this.stopping) return this.finish()
      this.setState('reconnecting')
      this.log('Connection lost; reconnecting')
      for (let attempt = 1; ; attempt++) {
        if (this.hasExpired()) {
          return this.end(`the credential expired at ${this.config.expiresAt}`)
        }
        await this.sleep(reconnectDelayMs(attempt, this.io.random))
        if (this.stopping) return this.finish()
        const result = await this.connectOnce()
        if (this.stopping) return this.finish()
        if (result.ok) {
          this.stats.reconnects += 1
          this.setState('ready')
          this.log(`Reconnected (reconnect ${this.stats.reconnects})`)
          break
        }
        this.log(`Reconnect attempt ${attempt} failed: ${result.detail}`)
        if (result.cause === 'auth' || result.cause === 'host-key') {
          return this.end(result.detail!)
        }
      }
    }
  }

  /** Resolves when the current connection has closed. */
  private closed(): Promise<void> {
    const client = this.client
    return new Promise(resolve => {
      if (client === undefined) return resolve()
      client.once('close', () => {
        this.client = undefined
        resolve()
      })
    })
  }

  /** One attempt: connect, check the host key, authenticate, and have every forward accepted. */
  private connectOnce(): Promise<Attempt> {
    const { config } = this
    const client = new Client()
    let hostKeyRefused: string | undefined
    let settled = false
    return new Promise<Attempt>(resolve => {
      const settle = (result: Attempt): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        if (result.ok) {
          this.client = client
          // A stop that came while this attempt ran: leave now rather than stay connected.
          if (this.stopping) client.end()
        } else {
          client.removeAllListeners('close')
          client.on('error', () => undefined)
          client.end()
          client.destroy()
        }
        resolve(result)
      }
      const timer = setTimeout(
        () =>
          settle({
            ok: false,
            cause: 'timeout',
            detail: `no connection with every forward accepted within ${config.attemptTimeoutMs / 1000} s`
          }),
        config.attemptTimeoutMs
      )

      client.on('keyboard-interactive', (_name, _instructions, _lang, prompts, finish) =>
        finish(prompts.map(() => config.token ?? ''))
      )
      // After every key exchange (the first one and any rekey): see cipher-keys.ts.
      client.on('handshake', () => keysAsKeyObjects(client))
      client.on('tcp connection', (details, accept, reject) => this.serve(details, accept, reject))
      client.on('error', error => {
        const level = (error as Error & { level?: string }).level
        if (hostKeyRefused !== undefined) {
          settle({ ok: false, cause: 'host-key', detail: hostKeyRefused })
        } else if (level === 'client-authentication') {
          settle({
            ok: false,
            cause: 'auth',
            detail: `the tunnel server refused the credential of ${config.user} (${error.message})`
          })
        } else if (level === 'client-timeout') {
          settle({ ok: false, cause: 'timeout', detail: error.message })
        } else {
          settle({ ok: false, cause: 'connect', detail: error.message })
        }
      })
      client.on('close', () =>
        settle({ ok: false, cause: 'connect', detail: 'the server closed the connection' })
      )
      client.on('ready', () => {
        this.log(`Connected to ${config.host}:${config.port} as ${config.user}`)
        this.requestForwards(client).then(settle, (error: Error) =>
          settle({ ok: false, cause: 'connect', detail: error.message })
        )
      })

      const connectConfig: ConnectConfig = {
        username: config.user,
        readyTimeout: config.attemptTimeoutMs,
        keepaliveInterval: KEEPALIVE_MS,
        keepaliveCountMax: 3,
        // Runs before any authentication: a key that is not pinned ends the attempt first.
        hostVerifier: (key: Buffer) => {
          const fingerprint = fingerprintOf(key)
          this.seenFingerprint = fingerprint
          // Unpinned, the first key is trusted, and then it alone: a reconnect never sends
          // the token to a server with another key.
          const trusted =
            config.hostKeyPins.length > 0
              ? config.hostKeyPins
              : this.stats.readyAt !== undefined
                ? [this.fingerprint]
                : [fingerprint]
          if (trusted.includes(fingerprint)) {
            this.fingerprint = fingerprint
            return true
          }
          hostKeyRefused =
            config.hostKeyPins.length > 0
              ? `the tunnel server's host key is ${fingerprint}, which tunnel-host-key does not list`
              : `the tunnel server's host key changed from ${this.fingerprint} to ${fingerprint}`
          this.log(`Host key ${fingerprint} is not trusted; leaving before authentication`)
          return false
        }
      }
      if (config.token !== undefined) {
        connectConfig.password = config.token
        connectConfig.tryKeyboard = true
      }
      if (config.privateKeyPath !== undefined) {
        connectConfig.privateKey = readFileSync(config.privateKeyPath)
      }
      // Our own socket, so that the pieces ssh2 writes per packet leave together.
      const socket = connectCoalesced(config.port, config.host)
      try {
        client.connect({ ...connectConfig, sock: socket })
      } catch (error) {
        socket.destroy()
        settle({ ok: false, cause: 'connect', detail: (error as Error).message })
      }
    })
  }

  private async requestForwards(client: Client): Promise<Attempt> {
    const results = await Promise.all(
      this.config.entries.map(
        entry =>
          new Promise<Attempt>(resolve =>
            client.forwardIn(entry.name, FORWARD_PORT, error => {
              if (error) {
                this.log(`Forward ${entry.name} refused by the server`)
                resolve({
                  ok: false,
                  cause: 'forward',
                  name: entry.name,
                  detail: `the tunnel server refused the forward for "${entry.name}"`
                })
              } else {
                this.log(`Forward ${entry.name} accepted -> ${entry.host}:${entry.port}`)
                resolve({ ok: true })
              }
            })
          )
      )
    )
    return results.find(result => !result.ok) ?? { ok: true }
  }

  /** One connection the server opened on a forward: pipe it to the entry's local target. */
  private serve(
    details: TcpConnectionDetails,
    accept: () => ClientChannel,
    reject: () => void
  ): void {
    const entry = this.config.entries.find(e => e.name === details.destIP.toLowerCase())
    if (entry === undefined) return reject()
    // No Nagle delay: small answers go out at once, as through OpenSSH. The host is looked up
    // at most once a second (lookup-cache.ts), not once per connection.
    const local = connectTcp({
      host: entry.host,
      port: entry.port,
      noDelay: true,
      lookup: this.lookup
    })
    let channel: ClientChannel | undefined
    local.once('connect', () => {
      channel = accept()
      this.stats.connections += 1
      this.dirty = true
      this.track(local)
      this.track(channel)
      channel.on('data', (chunk: Buffer) => this.count('bytesIn', chunk.length))
      local.on('data', (chunk: Buffer) => this.count('bytesOut', chunk.length))
      // Each side's end reaches the other through pipe, after its data. A side that closes
      // must not cut what is still on its way: ssh2's destroy() closes the channel at once
      // and drops data that waits for the SSH window, which truncated large answers.
      channel.on('error', () => local.destroy())
      channel.on('close', () => {
        if (local.writableLength === 0) local.destroy()
        else local.end(() => local.destroy())
      })
      local.on('close', () => {
        const opened = channel!
        if (opened.writableFinished) opened.close()
        else opened.once('finish', () => opened.close())
      })
      channel.pipe(local).pipe(channel)
      // The app ended its side (after pipe has ended the channel, which sent EOF): with nothing
      // left to send, close the channel now, so EOF and CLOSE leave in one write instead of two
      // (the 'close' above comes a turn later). The local socket does not stay half-open (Node's
      // default), so nothing could come back on it anyway; data still on its way to the app is
      // not cut (the channel's 'close' above ends the local socket gently).
      local.once('end', () => {
        if (channel!.writableLength === 0) channel!.close()
      })
    })
    local.on('error', error => {
      if (channel === undefined) {
        // The app is not listening (yet): this one connection fails, the tunnel stays up.
        this.stats.localErrors += 1
        this.dirty = true
        this.log(
          `${entry.name}: could not reach ${entry.host}:${entry.port} (${(error as NodeJS.ErrnoException).code ?? error.message})`
        )
        reject()
      } else {
        channel.destroy()
      }
    })
  }

  private track(stream: Duplex | Socket): void {
    this.open.add(stream)
    stream.once('close', () => this.open.delete(stream))
  }

  private count(field: 'bytesIn' | 'bytesOut', bytes: number): void {
    this.stats[field] += bytes
    this.dirty = true
    this.sinceCollect += bytes
    if (this.sinceCollect >= COLLECT_EVERY_BYTES) {
      this.sinceCollect = 0
      this.io.collectYoung?.()
    }
  }

  private hasExpired(): boolean {
    if (this.config.expiresAt === undefined) return false
    const at = Date.parse(this.config.expiresAt)
    return Number.isFinite(at) && at <= this.io.now()
  }

  /** Waits, but returns at once when a stop is requested. */
  private sleep(ms: number): Promise<void> {
    return new Promise(resolve => {
      const timer = setTimeout(done, ms)
      this.wake = done
      function done(): void {
        clearTimeout(timer)
        resolve()
      }
    })
  }

  private tick(): void {
    if (!this.stopping && existsSync(this.config.stopPath)) this.stop()
    const now = this.io.now()
    if ((this.dirty && now - this.lastWrite >= 1_000) || now - this.lastWrite >= HEARTBEAT_MS) {
      this.writeStats()
    }
  }

  private finish(): KeeperStats {
    for (const stream of this.open) stream.destroy()
    this.setState('stopped')
    this.log(
      `Stopped: ${this.stats.connections} connections served, ${this.stats.reconnects} reconnects`
    )
    return this.stats
  }

  /** The keeper ends on its own: recorded, so post can say when and why. */
  private end(reason: string): KeeperStats {
    for (const stream of this.open) stream.destroy()
    this.client?.end()
    this.stats.endedAt = this.iso()
    this.stats.endReason = reason
    this.setState('ended')
    this.log(`Ended: ${reason}`)
    return this.stats
  }

  private setState(state: KeeperStats['state']): void {
    this.stats.state = state
    this.writeStats()
  }

  /** Written whole to a temporary name, then renamed, so a reader never sees half a file. */
  private writeStats(): void {
    this.stats.updatedAt = this.iso()
    this.lastWrite = this.io.now()
    this.dirty = false
    const temporary = `${this.config.statsPath}.tmp`
    try {
      writeFileSync(temporary, `${JSON.stringify(this.stats)}\n`)
      renameSync(temporary, this.config.statsPath)
    } catch {
      // RUNNER_TEMP removed under it: the tunnel is still worth keeping up.
    }
  }

  /** One line in the keeper's own log. Nothing passed here ever holds the token. */
  private log(message: string): void {
    try {
      appendFileSync(this.config.logPath, `${this.iso()} ${message}\n`)
    } catch {
      // As for the stats: a log that cannot be written does not end the tunnel.
    }
  }

  private iso(): string {
    return new Date(this.io.now()).toISOString()
  }
}

/** Host key mismatches, refused logins and refused names do not get better by trying again. */
function isRetryable(cause: FailureCause): boolean {
  return cause === 'timeout' || cause === 'connect'
}
