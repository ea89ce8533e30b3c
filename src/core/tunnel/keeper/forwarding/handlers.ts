/**
 * What the keeper does with the connections the server opens on its forwards: the HTTP hooks it
 * builds from its configuration (the URL proof, then the gate, then the app; the request log),
 * the counters and timeline each connection feeds, and the streams to close at the end.
 *
 * Which path a connection takes:
 * - no request log, no gate, no proof: every connection is piped raw, as fast as a pipe;
 * - request log or gate on: every connection goes through the HTTP layer;
 * - proof alone: an entry's connections go through the HTTP layer only until its first proof is
 *   answered (main asks once per entry, right after ready), or until main is done proving; then
 *   the raw path. A connection already in the HTTP layer stays there.
 */
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import {
  DEFAULT_PROTECT,
  DEFAULT_PROVE_URL,
  PROOF_NONCES_KEPT_MS,
  type ExposeEntry,
  type KeeperConfig,
  type KeeperStats
} from '../../protocol.js'
import type { ForwardContext } from './forward-context.js'
import { makeGate, type SecureCookie } from '../http/gate.js'
import type { RequestRecord } from '../../request-log/record.js'
import { DEFAULT_HEAD_LIMITS, HeadWatch, type HeadLimits } from '../http/head-watch.js'
import type { HttpHooks } from '../http/hooks.js'
import { COLLECT_EVERY_BYTES, COLLECT_OLD_EVERY_REQUESTS } from '../io.js'
import type { LocalErrorSummary } from '../log.js'
import { cachedLookup } from './lookup-cache.js'
import { ExpectedProofs } from '../http/proof-answer.js'
import { RequestLogSink } from '../request-log-sink.js'
import { Timeline } from '../timeline.js'

export interface ForwardHandlerDeps {
  /** The keeper's counters, changed in place. */
  stats: KeeperStats
  /** A counter or the timeline changed: the record is written on the next tick. */
  changed(): void
  log(message: string): void
  now(): number
  localErrors: LocalErrorSummary
  collectYoung?(): void
  collectOld?(): void
  /** A test's shorter limits for connections that send no whole head; DEFAULT_HEAD_LIMITS. */
  headLimits?: HeadLimits
}

export class ForwardHandlers {
  readonly timeline: Timeline
  private readonly sink: RequestLogSink | undefined
  private readonly hooks: HttpHooks | undefined
  /** The proof alone needs HTTP: an entry's connections go raw once it was proven. */
  private readonly rawOnceProven: boolean
  private readonly proven = new Set<string>()
  /** Main's proof requests, answered once each while it proves (proof-answer.ts). */
  private readonly proofs: ExpectedProofs | undefined
  private readonly open = new Set<Duplex | Socket>()
  private readonly lookup = cachedLookup()
  /** Connections through the HTTP layer that owe a whole request head. */
  readonly heads: HeadWatch
  private sinceCollect = 0
  private loggedSinceCollect = 0

  /** `hooks`: given by a test instead of those the configuration asks for. */
  constructor(
    private readonly config: KeeperConfig,
    private readonly deps: ForwardHandlerDeps,
    hooks?: HttpHooks
  ) {
    this.timeline = new Timeline(config.entries, deps.now, deps.changed)
    this.heads = new HeadWatch(deps.headLimits ?? DEFAULT_HEAD_LIMITS, deps.now)
    this.sink = RequestLogSink.wanted(config) ? new RequestLogSink(config, deps.log) : undefined
    const protect = config.protect ?? DEFAULT_PROTECT
    const key = (config.proveUrl ?? DEFAULT_PROVE_URL) ? config.proofKey : undefined
    const proofKey = key === '' ? undefined : key
    const proving = proofKey !== undefined
    this.proofs = proving
      ? new ExpectedProofs(proofKey, config.proofRequests ?? [], deps.now)
      : undefined
    this.rawOnceProven = hooks === undefined && proving && !protect && this.sink === undefined
    if (hooks !== undefined) this.hooks = hooks
    else if (protect || proving || this.sink !== undefined) {
      const gate = protect ? makeGate(config.gateSecret, secureCookieFor(config)) : undefined
      const sink = this.sink
      this.hooks = {
        decide: request => {
          const proof = this.proofs?.answer(request)
          if (proof !== undefined) {
            this.proven.add(request.entry)
            return proof
          }
          return gate?.(request) ?? 'forward'
        },
        ...(sink !== undefined && { record: record => this.logged(sink, record) }),
        captureBodyBytes: sink === undefined ? 0 : (config.requestLog?.bodyBytes ?? 0),
        // With the gate on, bytes it cannot read are never passed on: they may be a request.
        passNotHttp: !protect
      }
    }
  }

  /** Main is told the tunnel is ready and proves now: its nonces are kept a bounded time. */
  proving(): void {
    this.proofs?.startClock(PROOF_NONCES_KEPT_MS)
  }

  /** Main has proved (or failed, or left): no proof is answered any more. */
  proofOver(): void {
    this.proofs?.end()
  }

  /** Before ready: the HAR exists and is valid from then on. */
  async start(): Promise<void> {
    await this.sink?.open()
  }

  /** At the end, before the final record: open connections closed, the final HAR written. */
  async finish(): Promise<void> {
    this.heads.stop()
    this.destroyOpen()
    // The connections just closed record their requests on their 'close', a turn later.
    await new Promise(resolve => setImmediate(resolve))
    await this.sink?.close()
  }

  destroyOpen(): void {
    for (const stream of this.open) stream.destroy()
  }

  /** What serving one connection needs; asked for each connection the server opens. */
  context(): ForwardContext {
    const { stats, changed } = this.deps
    return {
      entries: this.config.entries,
      lookup: this.lookup,
      heads: this.heads,
      http: entry =>
        this.rawOnceProven && (this.proven.has(entry.name) || this.proofs!.over)
          ? undefined
          : this.hooks,
      served: entry => {
        stats.connections += 1
        changed()
        if (this.timeline.appReached(entry.name)) {
          this.deps.log(`${entry.name}: first connection forwarded to ${entry.host}:${entry.port}`)
        }
      },
      bytes: (field, count) => this.count(field, count),
      localError: (entry: ExposeEntry, code: string) => {
        stats.localErrors += 1
        changed()
        this.timeline.appUnreachable(entry.name)
        this.deps.localErrors.record(entry.name, `${entry.host}:${entry.port}`, code)
      },
      track: stream => {
        this.open.add(stream)
        stream.once('close', () => this.open.delete(stream))
      }
    }
  }

  private count(field: 'bytesIn' | 'bytesOut', bytes: number): void {
    this.deps.stats[field] += bytes
    this.deps.changed()
    this.sinceCollect += bytes
    if (this.sinceCollect >= COLLECT_EVERY_BYTES) {
      this.sinceCollect = 0
      this.deps.collectYoung?.()
    }
  }

  /** Into the log; and a full collection now and then (KeeperIo.collectOld). */
  private logged(sink: RequestLogSink, record: RequestRecord): void {
    sink.record(record)
    this.loggedSinceCollect += 1
    if (this.loggedSinceCollect < COLLECT_OLD_EVERY_REQUESTS) return
    this.loggedSinceCollect = 0
    this.deps.collectOld?.()
  }
}

/**
 * The gate's cookie is `Secure` where the entry's public URL is https. That URL is the one main
 * formed and sent over IPC; a request's `X-Forwarded-Proto` is not asked, since where no edge
 * sets it the client writes it. A URL main did not send: `Secure`, which can only fail closed.
 */
export function secureCookieFor(config: Pick<KeeperConfig, 'publicUrls'>): SecureCookie {
  const urls = config.publicUrls ?? {}
  return entry => !Object.hasOwn(urls, entry) || !/^http:/i.test(urls[entry])
}
