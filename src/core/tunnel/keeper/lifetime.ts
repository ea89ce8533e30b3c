/**
 * When the keeper ends by itself, besides at a stop request: at its end time, and once the
 * process it watches is gone (KeeperConfig.endAt and watchPid). Only hosts where no runner ends
 * leftover processes set them; without them the keeper runs until it is stopped.
 */
import { hasExpired } from '../../text/iso-time.js'
import type { KeeperConfig } from '../protocol.js'

/** Whether a process runs under `pid`: EPERM means it does, only under another user. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export class KeeperLifetime {
  private readonly endMs: number | undefined

  constructor(
    private readonly config: Pick<KeeperConfig, 'endAt' | 'watchPid' | 'expiresAt'>,
    private readonly now: () => number,
    private readonly exists: (pid: number) => boolean = processExists
  ) {
    const endMs = config.endAt === undefined ? NaN : Date.parse(config.endAt)
    this.endMs = Number.isFinite(endMs) ? endMs : undefined
  }

  /** Why the keeper must end now, or undefined while it may run on. */
  due(): string | undefined {
    if (this.endMs !== undefined && this.now() >= this.endMs) {
      return `it reached its end time ${this.config.endAt} (its longest life, or the credential's expiry if sooner)`
    }
    const pid = this.config.watchPid
    if (pid !== undefined && !this.exists(pid)) return `the process it watches (pid ${pid}) ended`
    return undefined
  }

  /** Why the keeper must not connect again: its lifetime is over, or the credential expired. */
  noReconnect(): string | undefined {
    const expired = hasExpired(this.config.expiresAt, this.now())
    return (
      this.due() ?? (expired ? `the credential expired at ${this.config.expiresAt}` : undefined)
    )
  }

  /** A pause cut short at the end time, so a keeper waiting to reconnect wakes for it. */
  cap(ms: number): number {
    if (this.endMs === undefined) return ms
    return Math.max(0, Math.min(ms, this.endMs - this.now()))
  }
}
