/**
 * What the keeper saw during the job, for one line in post's summary and at the CLI's revoke:
 * when the SSH connection was down after the first ready, and why; and per entry how long its
 * app could not be reached (from the first failed local connect until the next one that worked,
 * on the raw and the HTTP path alike) and when the first forward to it worked.
 */
import type Client from 'ssh2/lib/client.js'
import { cleanText } from '../../text/printable.js'
import type { TunnelTimeline } from '../protocol.js'

/** Down periods kept in the record: the latest ones; the earlier ones are only counted. */
export const DOWN_PERIODS_KEPT = 50
const REASON_MAX = 200

interface AppState {
  unreachableMs: number
  longestMs: number
  firstForwardAt?: string
  /** The first failed connect of the outage going on, if one is. */
  downSince?: number
}

export class Timeline {
  private readonly down: TunnelTimeline['down'] = []
  private downOmitted = 0
  private readonly apps = new Map<string, AppState>()

  constructor(
    entries: readonly { name: string }[],
    private readonly now: () => number,
    private readonly changed: () => void
  ) {
    for (const entry of entries) this.apps.set(entry.name, { unreachableMs: 0, longestMs: 0 })
  }

  /** The connection dropped (not at a stop): a down period starts. */
  connectionLost(reason: string): void {
    this.down.push({ from: this.iso(), reason })
    if (this.down.length > DOWN_PERIODS_KEPT) {
      this.down.shift()
      this.downOmitted += 1
    }
    this.changed()
  }

  /** A new connection has every forward again: the open down period ends. */
  reconnected(): void {
    const last = this.down.at(-1)
    if (last !== undefined && last.to === undefined) last.to = this.iso()
    this.changed()
  }

  /** A local connection to `entry`'s app worked; true the first time, to be logged. */
  appReached(entry: string): boolean {
    const app = this.app(entry)
    if (app.downSince !== undefined) {
      this.addOutage(app, this.now() - app.downSince)
      app.downSince = undefined
      this.changed()
    }
    if (app.firstForwardAt !== undefined) return false
    app.firstForwardAt = this.iso()
    this.changed()
    return true
  }

  /** A local connection to `entry`'s app failed: an outage starts, unless one goes on. */
  appUnreachable(entry: string): void {
    const app = this.app(entry)
    if (app.downSince !== undefined) return
    app.downSince = this.now()
    this.changed()
  }

  /**
   * For the record: an outage still going on counts up to now (an app that never came up was
   * unreachable from its first failed connect to the end); a down period still open has no `to`.
   */
  snapshot(): TunnelTimeline {
    const now = this.now()
    const apps: TunnelTimeline['apps'] = {}
    for (const [name, app] of this.apps) {
      const ongoing = app.downSince === undefined ? 0 : now - app.downSince
      apps[name] = {
        unreachableMs: app.unreachableMs + ongoing,
        longestMs: Math.max(app.longestMs, ongoing),
        ...(app.firstForwardAt !== undefined && { firstForwardAt: app.firstForwardAt })
      }
    }
    return {
      down: this.down.map(period => ({ ...period })),
      ...(this.downOmitted > 0 && { downOmitted: this.downOmitted }),
      apps
    }
  }

  private addOutage(app: AppState, ms: number): void {
    const duration = Math.max(0, ms)
    app.unreachableMs += duration
    app.longestMs = Math.max(app.longestMs, duration)
  }

  private app(entry: string): AppState {
    let app = this.apps.get(entry)
    if (app === undefined) {
      app = { unreachableMs: 0, longestMs: 0 }
      this.apps.set(entry, app)
    }
    return app
  }

  private iso(): string {
    return new Date(this.now()).toISOString()
  }
}

/**
 * Resolves when `client` closes, with why: the last error ssh2 reported (a keepalive timeout, a
 * reset), or the server closing it. Text from or about the server is made printable.
 */
export function whenClosed(client: Client): Promise<string> {
  let reason = 'the connection was closed by the tunnel server or the network'
  return new Promise(resolve => {
    client.on('error', (error: Error) => {
      reason = `the connection failed: ${cleanText(error.message, REASON_MAX)}`
    })
    client.once('close', () => resolve(reason))
  })
}
