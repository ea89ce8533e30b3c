/**
 * When the keeper connects, and how often: the first attempts before ready, and the reconnects
 * after. Whatever the server does, it gets at most LOGINS_PER_MINUTE attempts (and so logins) in
 * any minute, and the pause between attempts doubles until a connection has stayed up for
 * STABLE_AFTER_MS: a server that accepts the login and drops the connection at once is not sent
 * the credential once a second.
 */
import { LONGEST_RECONNECT_DELAY_MS, RECONNECT_JITTER } from '../../protocol.js'
import type { Attempt } from './ssh-attempt.js'

/** The most connection attempts in any rolling minute. */
export const LOGINS_PER_MINUTE = 6
const MINUTE_MS = 60_000
/** A connection up this long resets the pause between attempts to its shortest. */
const STABLE_AFTER_MS = 60_000
/** Refused logins in a row after a drop before the keeper gives up (the first and 3 more). */
export const REFUSALS_BEFORE_GIVING_UP = 4

/**
 * Delay before retry number `step` (1, 2, …): doubling from 1 s to 30 s, with ±25 % jitter. Main
 * waits for ready as long as these pauses allow (readyWaitMs in protocol.ts).
 */
export function reconnectDelayMs(step: number, random: () => number): number {
  const base = Math.min(LONGEST_RECONNECT_DELAY_MS, 1_000 * 2 ** Math.min(step - 1, 5))
  return Math.round(base * (1 - RECONNECT_JITTER + random() * 2 * RECONNECT_JITTER))
}

/** The pacing of attempts over the keeper's whole life: backoff and the login ceiling. */
export class ConnectPacing {
  private step = 0
  private readonly attempts: number[] = []
  private upSince: number | undefined

  constructor(
    private readonly now: () => number,
    private readonly random: () => number
  ) {}

  /** The pause before the next retry; longer each time until a connection stays up. */
  nextDelayMs(): number {
    this.step += 1
    return reconnectDelayMs(this.step, this.random)
  }

  /** How long to wait before an attempt may start, to stay within the login ceiling. */
  waitForCeilingMs(): number {
    const now = this.now()
    while (this.attempts.length > 0 && now - this.attempts[0] >= MINUTE_MS) this.attempts.shift()
    if (this.attempts.length < LOGINS_PER_MINUTE) return 0
    return this.attempts[0] + MINUTE_MS - now
  }

  attemptStarted(): void {
    this.attempts.push(this.now())
  }

  connected(): void {
    this.upSince = this.now()
  }

  /** The connection dropped: only one that stayed up a while earns quick retries again. */
  dropped(): void {
    if (this.upSince !== undefined && this.now() - this.upSince >= STABLE_AFTER_MS) this.step = 0
    this.upSince = undefined
  }
}

/** What the loops need from the keeper. */
export interface LoopContext {
  pacing: ConnectPacing
  attempt(): Promise<Attempt>
  /** Waits, but returns at once when a stop is requested. */
  sleep(ms: number): Promise<void>
  stopping(): boolean
  expired(): string | undefined
  log(message: string): void
  user: string
  maxAttempts: number
}

/** Every attempt goes through here: the one place that keeps the login ceiling. */
async function paced(context: LoopContext): Promise<Attempt | undefined> {
  const wait = context.pacing.waitForCeilingMs()
  if (wait > 0) {
    context.log(
      `Waiting ${Math.ceil(wait / 1000)} s: at most ${LOGINS_PER_MINUTE} connection attempts a minute`
    )
    await context.sleep(wait)
    if (context.stopping()) return undefined
  }
  context.pacing.attemptStarted()
  const result = await context.attempt()
  if (result.ok) context.pacing.connected()
  return result
}

const stopped: Attempt = { ok: false, cause: 'connect', detail: 'stopped' }

/** Before the first ready: up to maxAttempts, and only for causes that may get better. */
export async function connectFirst(context: LoopContext): Promise<Attempt> {
  let last: Attempt = { ok: false, cause: 'connect', detail: 'no attempt was made' }
  for (let attempt = 1; attempt <= context.maxAttempts; attempt++) {
    last = (await paced(context)) ?? stopped
    if (last.ok || context.stopping()) return last
    const final = attempt === context.maxAttempts || !isRetryable(last.cause!)
    context.log(`Attempt ${attempt} of ${context.maxAttempts} failed: ${last.detail}`)
    if (final) return last
    await context.sleep(context.pacing.nextDelayMs())
  }
  return last
}

export type Reconnected =
  { type: 'up'; attempt: Attempt } | { type: 'stopped' } | { type: 'end'; reason: string }

/** After a drop: try again until up, stopped, the credential expired, or it is refused for good. */
export async function reconnect(context: LoopContext): Promise<Reconnected> {
  context.pacing.dropped()
  let refusals = 0
  for (let attempt = 1; ; attempt++) {
    const expired = context.expired()
    if (expired !== undefined) return { type: 'end', reason: expired }
    await context.sleep(context.pacing.nextDelayMs())
    if (context.stopping()) return { type: 'stopped' }
    const result = await paced(context)
    if (result === undefined || context.stopping()) return { type: 'stopped' }
    if (result.ok) return { type: 'up', attempt: result }
    context.log(`Reconnect attempt ${attempt} failed: ${result.detail}`)
    // Never again to a key that is not trusted: the token must not reach it.
    if (result.cause === 'host-key') return { type: 'end', reason: result.detail! }
    if (result.cause === 'auth') {
      refusals += 1
      // One refusal may be the server's hiccup; several in a row mean the credential is gone.
      if (refusals >= REFUSALS_BEFORE_GIVING_UP) {
        return {
          type: 'end',
          reason: `the tunnel server refused the credential of ${context.user} ${refusals} times in a row since the connection was lost; it was probably revoked or has expired, so the tunnel ended`
        }
      }
    } else {
      refusals = 0
    }
  }
}

/** Host key mismatches, refused logins and refused names do not get better by trying again. */
function isRetryable(cause: string): boolean {
  return cause === 'timeout' || cause === 'connect'
}
