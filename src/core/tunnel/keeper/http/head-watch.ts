/**
 * Bounds what public connections that send no complete request head may hold: time and memory.
 * Without it each such connection holds up to MAX_HEAD_BYTES, for as long as the tunnel server
 * keeps it open. A connection is on the clock while it has no request in progress (from its
 * start, and again after each answer on a keep-alive connection) or holds part of a head; it is
 * closed once it has waited `headMs` without completing one. The bytes of unfinished heads count
 * against one budget across all connections; past it, the connections holding the most (the
 * oldest first among equals) are closed until the rest fit.
 * One sweep timer for all connections, not a timer per connection or per read: a request pays
 * for two Map operations on its way to the app, and nothing more.
 */

export interface HeadLimits {
  /** The longest wait for a whole request head, with no request in progress. */
  headMs: number
  /** How often waiting connections are looked at: a connection may wait this much longer. */
  sweepMs: number
  /** What unfinished heads may hold in all, in bytes. */
  budgetBytes: number
}

/**
 * Node's own HTTP server allows 60 s for a head (headersTimeout); so do we, and the same again
 * for an idle keep-alive connection, whose tunnel server or edge may pool it (Node's 5 s would
 * race a pooled request). 8 MiB holds 128 heads of the largest size read (512 of the largest
 * Node reads), and thousands of ordinary ones.
 */
export const DEFAULT_HEAD_LIMITS: HeadLimits = {
  headMs: 60_000,
  sweepMs: 1_000,
  budgetBytes: 8 * 1024 * 1024
}

/** A connection as the watch sees it: destroyed when it waited too long or holds too much. */
export interface Watched {
  destroy(): void
}

interface Waiting {
  since: number
  bytes: number
}

export class HeadWatch {
  private readonly waiting = new Map<Watched, Waiting>()
  private held = 0
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly limits: HeadLimits,
    private readonly now: () => number
  ) {}

  /** `connection` waits for a head from now on (unless it already does). */
  wait(connection: Watched): void {
    if (this.waiting.has(connection)) return
    this.waiting.set(connection, { since: this.now(), bytes: 0 })
    // Made once, at the first connection; unref'd, so it keeps no process alive.
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.sweep(), this.limits.sweepMs)
      this.timer.unref()
    }
  }

  /** What `connection` holds of an unfinished head now; puts it on the clock if it was not. */
  holding(connection: Watched, bytes: number): void {
    this.wait(connection)
    const waiting = this.waiting.get(connection)!
    this.held += bytes - waiting.bytes
    waiting.bytes = bytes
    if (this.held > this.limits.budgetBytes) this.overBudget()
  }

  /** A whole head came, or the connection went raw or closed: off the clock. */
  done(connection: Watched): void {
    const waiting = this.waiting.get(connection)
    if (waiting === undefined) return
    this.held -= waiting.bytes
    this.waiting.delete(connection)
  }

  /** At the keeper's end. */
  stop(): void {
    clearInterval(this.timer)
    this.timer = undefined
  }

  /** Connections waiting now, and the bytes their heads hold (for tests and the bench). */
  get size(): { connections: number; bytes: number } {
    return { connections: this.waiting.size, bytes: this.held }
  }

  private sweep(): void {
    const late = this.now() - this.limits.headMs
    for (const [connection, waiting] of this.waiting) {
      if (waiting.since > late) continue
      this.done(connection)
      connection.destroy()
    }
  }

  private overBudget(): void {
    while (this.held > this.limits.budgetBytes) {
      let largest: [Watched, Waiting] | undefined
      // In insertion order, the oldest first: among equals the oldest goes.
      for (const entry of this.waiting) {
        if (largest === undefined || entry[1].bytes > largest[1].bytes) largest = entry
      }
      if (largest === undefined) return
      this.done(largest[0])
      largest[0].destroy()
    }
  }
}
