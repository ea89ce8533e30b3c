/**
 * The keeper's log file, with a bound. A public request to an app that is not listening fails
 * one local connection; logged one line each, a busy client wrote about 0.5 GB an hour. So the
 * same local error is logged once, then counted and summarised at most once a minute, and the
 * file has a size cap after which routine lines are dropped (the counters in the record still
 * count everything).
 */
import { appendFileSync, statSync } from 'node:fs'

/** Routine lines stop here; see KeeperLog. */
const LOG_CAP_BYTES = 1024 * 1024
/** Room kept after the cap for the few lines that say how the keeper ended. */
const FINAL_RESERVE_BYTES = 16 * 1024
export const SUMMARY_EVERY_MS = 60_000

export class KeeperLog {
  private bytes: number
  private capped = false

  constructor(
    private readonly path: string,
    private readonly now: () => number,
    private readonly capBytes = LOG_CAP_BYTES
  ) {
    // Main opened the file, and the process's stdout and stderr go to it too.
    this.bytes = sizeOf(path)
  }

  /** One line. Nothing passed here ever holds the token. */
  line(message: string): void {
    const text = this.stamp(message)
    if (this.capped) return
    if (this.bytes + Buffer.byteLength(text) > this.capBytes) {
      this.capped = true
      this.write(
        this.stamp(
          `The log reached its cap of ${Math.round(this.capBytes / 1024)} KiB; later lines are dropped (the counters still count)`
        )
      )
      return
    }
    this.write(text)
  }

  /** A line about the keeper's end: written past the cap, into a small reserve. */
  final(message: string): void {
    const text = this.stamp(message)
    if (this.bytes + Buffer.byteLength(text) <= this.capBytes + FINAL_RESERVE_BYTES) {
      this.write(text)
    }
  }

  private stamp(message: string): string {
    return `${new Date(this.now()).toISOString()} ${message}\n`
  }

  private write(text: string): void {
    this.bytes += Buffer.byteLength(text)
    try {
      appendFileSync(this.path, text)
    } catch {
      // A log that cannot be written does not end the tunnel.
    }
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

interface Window {
  since: number
  more: number
  entry: string
  target: string
  code: string
}

/**
 * Local connection errors, by entry and error code: the first is logged in full, the ones after
 * it within a minute are counted and summarised in one line when the minute is over.
 */
export class LocalErrorSummary {
  private readonly windows = new Map<string, Window>()

  constructor(
    private readonly log: (message: string) => void,
    private readonly now: () => number
  ) {}

  record(entry: string, target: string, code: string): void {
    const key = `${entry}\n${target}\n${code}`
    const open = this.windows.get(key)
    if (open !== undefined) {
      open.more += 1
      return
    }
    this.windows.set(key, { since: this.now(), more: 0, entry, target, code })
    this.log(`${entry}: could not reach ${target} (${code})`)
  }

  /** Writes the summary of every minute that is over (or of all, when `all`). */
  flush(all = false): void {
    const now = this.now()
    for (const [key, window] of this.windows) {
      if (!all && now - window.since < SUMMARY_EVERY_MS) continue
      if (window.more === 0) {
        // A quiet minute: the next error is news again, and logged in full.
        this.windows.delete(key)
        continue
      }
      const seconds = Math.max(1, Math.round((now - window.since) / 1000))
      this.log(
        `${window.entry}: ${window.more} more connection${window.more === 1 ? '' : 's'} could not reach ${window.target} (${window.code}) in the last ${seconds} s`
      )
      if (all) this.windows.delete(key)
      else this.windows.set(key, { ...window, since: now, more: 0 })
    }
  }
}
