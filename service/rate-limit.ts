/**
 * A sliding-window rate limiter: at most `limit` hits per `windowMs` for each key.
 * Sliding rather than fixed, so that `retry_after` is the exact wait until the oldest hit
 * leaves the window, which is what a client honouring `retry_after` needs.
 */

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number }

export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>()

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number
  ) {}

  /** Records a hit for `key` if the window has room; otherwise says how long to wait. */
  take(key: string): RateDecision {
    const now = this.now()
    const recent = (this.hits.get(key) ?? []).filter(at => at > now - this.windowMs)
    if (recent.length >= this.limit) {
      this.hits.set(key, recent)
      const freesAt = recent[0] + this.windowMs
      // At least 1: a retry_after of 0 would invite an immediate retry that fails again.
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((freesAt - now) / 1000)) }
    }
    recent.push(now)
    this.hits.set(key, recent)
    return { allowed: true }
  }
}
