/**
 * The tunnel keeper: one SSH connection holding a remote forward per `expose` entry; each
 * connection on a forward goes to the entry's `HOST:PORT` (forwarded-connection.ts: raw, or
 * through the HTTP layer when `httpHooks` need it), and it reconnects when the connection drops.
 * It runs in the process keeper/main.ts starts; tests run this logic in-process. Its parts:
 * reconnect.ts, ssh-attempt.ts, record.ts, log.ts, and traffic.ts (what it does with the
 * connections: hooks built from its configuration, counters, timeline, request log); shared
 * with main and post: ../protocol.ts.
 */
import { existsSync } from 'node:fs'
import type Client from 'ssh2/lib/client.js'
import { cleanText } from '../../text/printable.js'
import { serveForwarded } from './forwarding/forwarded-connection.js'
import { HostKeyTrust } from './ssh/host-keys.js'
import type { HttpHooks } from './http/hooks.js'
import { KeeperLog, LocalErrorSummary } from './log.js'
import type { KeeperIo } from './io.js'
import { STOP_FILE_CHECK_MS, type KeeperConfig, type KeeperStats } from '../protocol.js'
import { KeeperRecord } from './stats-file.js'
import { whenClosed } from './timeline.js'
import { ForwardHandlers } from './forwarding/handlers.js'
import { ConnectPacing, connectFirst, reconnect, type LoopContext } from './ssh/reconnect.js'
import { attemptConnection, closeConnection, SERVER_TEXT_MAX } from './ssh/ssh-attempt.js'
import { KeeperLifetime } from './lifetime.js'

/** The stop file is looked for, and the record written when due, this often. */
const TICK_MS = STOP_FILE_CHECK_MS
export class Keeper {
  private readonly stats: KeeperStats
  private client: Client | undefined
  /** The host key the current or last connection was trusted with. */
  private fingerprint: string | undefined
  /** The key the server showed last, trusted or not: reported when the first start fails. */
  private seenFingerprint: string | undefined
  private stopping = false
  /** Why the keeper is leaving by itself (its lifetime is over); undefined for a stop. */
  private ending: string | undefined
  private wake: (() => void) | undefined
  private readonly handlers: ForwardHandlers
  private readonly logFile: KeeperLog
  private readonly localErrors: LocalErrorSummary
  private readonly record: KeeperRecord
  private readonly trust: HostKeyTrust
  private readonly pacing: ConnectPacing
  private readonly lifetime: KeeperLifetime

  /** `httpHooks`: a test's own, instead of those built from the configuration (traffic.ts). */
  constructor(
    private readonly config: KeeperConfig,
    private readonly io: KeeperIo,
    httpHooks?: HttpHooks
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
    this.logFile = new KeeperLog(config.logPath, () => io.now())
    this.localErrors = new LocalErrorSummary(
      message => this.log(message),
      () => io.now()
    )
    this.record = new KeeperRecord(config.statsPath, () => io.now())
    this.trust = new HostKeyTrust(config.hostKeyPins, config.hostKeyOptionName)
    this.lifetime = new KeeperLifetime(config, () => io.now())
    this.pacing = new ConnectPacing(
      () => io.now(),
      () => io.random()
    )
    const deps = {
      stats: this.stats,
      changed: () => this.record.changed(),
      log: (message: string) => this.log(message),
      now: () => io.now(),
      localErrors: this.localErrors,
      collectYoung: () => io.collectYoung?.(),
      collectOld: () => io.collectOld?.(),
      headLimits: io.headLimits
    }
    this.handlers = new ForwardHandlers(config, deps, httpHooks)
  }

  /** Connects, reports, and keeps the tunnel up until stopped or the credential is refused. */
  async run(): Promise<KeeperStats> {
    const names = this.config.entries.map(e => `${e.name} -> ${e.host}:${e.port}`).join(', ')
    this.log(
      `Starting: ${this.config.user}@${this.config.host}:${this.config.port}, forwards ${names}`
    )
    // Post finds and stops the keeper through its record: without one, never connect.
    const unwritable = this.writeStats()
    if (unwritable !== undefined) return this.failStart(unwritable)
    const ticker = setInterval(() => this.tick(), TICK_MS)
    try {
      // The request log's HAR exists, valid, before main is told the tunnel is ready.
      await this.handlers.start()
      const first = await connectFirst(this.loop())
      if (!first.ok) {
        this.io.report({
          type: 'failed',
          cause: first.cause!,
          detail: this.ending ?? first.detail!,
          ...(first.name !== undefined && { name: first.name }),
          ...(first.forwardLimit !== undefined && { forwardLimit: first.forwardLimit }),
          ...(first.nameTaken && { nameTaken: true }),
          ...(this.seenFingerprint !== undefined && { fingerprint: this.seenFingerprint })
        })
        return await this.end(this.ending ?? `could not start: ${first.detail}`)
      }
      this.client = first.client
      this.stats.readyAt = this.iso()
      this.stats.state = 'ready'
      // The record says "ready" before main is told so, and main lets go only then.
      const notRecorded = this.writeStats()
      if (notRecorded !== undefined) return await this.failStart(notRecorded)
      this.handlers.proving()
      this.io.report({ type: 'ready', fingerprint: this.fingerprint! })
      return await this.keepUp()
    } finally {
      clearInterval(ticker)
      this.localErrors.flush(true)
      this.writeStats()
    }
  }

  /** Asks the keeper to cancel its forwards and leave, as the stop file does. */
  stop(): void {
    if (this.stopping) return
    this.log('Stop requested')
    this.leave()
  }

  /** Main has its proof answers, or is gone: no nonce of its is answered any more. */
  proofOver(): void {
    this.handlers.proofOver()
  }

  /** A stop, or the end of its lifetime: the loops return, the connection closes. */
  private leave(): void {
    this.stopping = true
    this.wake?.()
    if (this.client !== undefined) closeConnection(this.client, this.config.entries)
  }

  /** Leaves as at a stop once its lifetime is over, and records that as its end. */
  private checkLifetime(): void {
    if (this.stopping) return
    this.ending = this.lifetime.due()
    if (this.ending !== undefined) this.leave()
  }

  /** Records an unexpected error as the keeper's end, so post can say when and why. */
  crashed(error: Error): void {
    this.recordEnd(`the tunnel process crashed: ${cleanText(error.message, SERVER_TEXT_MAX)}`)
  }

  private failStart(detail: string): Promise<KeeperStats> {
    this.io.report({ type: 'failed', cause: 'record', detail: `the tunnel process ${detail}` })
    return this.end(`could not start: ${detail}`)
  }

  private loop(): LoopContext {
    return {
      pacing: this.pacing,
      attempt: () => this.attempt(),
      sleep: ms => this.sleep(ms),
      stopping: () => this.stopping,
      expired: () => this.lifetime.noReconnect(),
      log: message => this.log(message),
      user: this.config.user,
      maxAttempts: this.config.maxAttempts
    }
  }

  private attempt() {
    return attemptConnection({
      config: this.config,
      trust: this.trust,
      log: message => this.log(message),
      sawKey: fingerprint => (this.seenFingerprint = fingerprint),
      trustedKey: fingerprint => (this.fingerprint = fingerprint),
      serve: (details, accept, reject) =>
        serveForwarded(details, accept, reject, this.handlers.context()),
      stopping: () => this.stopping,
      now: () => this.io.now()
    })
  }

  /** After the first ready: reconnect whenever the connection drops, until told to stop. */
  private async keepUp(): Promise<KeeperStats> {
    for (;;) {
      const reason = await this.closed()
      if (this.stopping) return await this.finish()
      this.handlers.timeline.connectionLost(reason)
      this.setState('reconnecting')
      this.log(`Connection lost; reconnecting (${reason})`)
      const outcome = await reconnect(this.loop())
      if (outcome.type === 'stopped') return await this.finish()
      if (outcome.type === 'end') return await this.end(outcome.reason)
      this.client = outcome.attempt.client
      this.stats.reconnects += 1
      this.handlers.timeline.reconnected()
      this.setState('ready')
      this.log(`Reconnected (reconnect ${this.stats.reconnects})`)
    }
  }

  /** Resolves when the current connection has closed, with why (timeline.ts). */
  private async closed(): Promise<string> {
    const client = this.client
    if (client === undefined) return 'no connection'
    const reason = await whenClosed(client)
    this.client = undefined
    return reason
  }

  /** Waits, but returns at once when a stop is requested, and at the end time at the latest. */
  private async sleep(ms: number): Promise<void> {
    await this.pause(this.lifetime.cap(ms))
    this.checkLifetime()
  }

  private pause(ms: number): Promise<void> {
    return new Promise(resolve => {
      let timer: NodeJS.Timeout | undefined
      const done = (): void => {
        clearTimeout(timer)
        resolve()
      }
      this.wake = done
      if (this.io.sleep !== undefined) this.io.sleep(ms).then(done, done)
      else timer = setTimeout(done, ms)
    })
  }

  private tick(): void {
    if (!this.stopping && existsSync(this.config.stopPath)) this.stop()
    this.checkLifetime()
    this.localErrors.flush()
    this.stats.timeline = this.handlers.timeline.snapshot()
    this.record.saveIfDue(this.stats)
  }

  /** A stop: the final request log first, then the record that says so (post waits for it). */
  private async finish(): Promise<KeeperStats> {
    if (this.ending !== undefined) return await this.end(this.ending)
    await this.handlers.finish()
    this.setState('stopped')
    this.localErrors.flush(true)
    this.logFile.final(
      `Stopped: ${this.stats.connections} connections served, ${this.stats.reconnects} reconnects`
    )
    return this.stats
  }

  /** The keeper ends on its own: the final request log, then its end recorded. */
  private async end(reason: string): Promise<KeeperStats> {
    this.client?.end()
    await this.handlers.finish()
    return this.recordEnd(reason)
  }

  /** Recorded, so post can say when and why; at once, as a crash has no time to wait. */
  private recordEnd(reason: string): KeeperStats {
    this.handlers.destroyOpen()
    this.client?.end()
    this.stats.endedAt = this.iso()
    this.stats.endReason = reason
    this.setState('ended')
    this.localErrors.flush(true)
    this.logFile.final(`Ended: ${reason}`)
    return this.stats
  }

  private setState(state: KeeperStats['state']): void {
    this.stats.state = state
    this.writeStats()
  }

  /** Returns why the record could not be written; after ready that does not end the tunnel. */
  private writeStats(): string | undefined {
    this.stats.timeline = this.handlers.timeline.snapshot()
    return this.record.save(this.stats)
  }

  private log(message: string): void {
    this.logFile.line(message)
  }

  private iso(): string {
    return new Date(this.io.now()).toISOString()
  }
}
