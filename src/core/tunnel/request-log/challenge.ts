/**
 * A challenge is not a failure. A browser sends its first request to a URL without credentials,
 * even with Playwright's `httpCredentials`: the gate answers 401 with `WWW-Authenticate`, and the
 * browser sends the same request again with them. So a 401 from the gate that is followed within
 * 10 s by an admitted request for the same method and path, on the same connection or from the
 * same client address, was a challenge the client answered, not a refusal; one healthy browser
 * run had read `refused 19`. Records come in the order requests end, which for a refusal is at
 * once, so a refusal is watched until its retry comes; only the latest few are watched, so a
 * flood of refusals holds no more memory than a quiet run.
 */
import type { RequestRecord } from './record.js'

export const CHALLENGE_WINDOW_MS = 10_000
/** Refusals watched at most: the oldest is let go first. */
const REFUSALS_WATCHED = 256

interface Watched<T> {
  method: string
  path: string
  connection?: number
  address?: string
  startedAt: number
  refusal: T
}

/** Whether the record is the gate's 401 (a refusal with an answer, not bytes closed unread). */
export function isGateChallenge(record: RequestRecord): boolean {
  return record.outcome === 'refused' && record.status === 401 && record.tunnelAnswered === true
}

/**
 * Whether the record passed the gate: sent to the app (which may have been down), or let in by
 * the gate's own redirect that sets its cookie (a browser's navigation that held the secret).
 */
function isAdmitted(record: RequestRecord): boolean {
  return ['forwarded', 'unreachable', 'admitted'].includes(record.outcome)
}

/** Watches the gate's 401s; `T` is what the caller keeps of a refusal (its table row). */
export class ChallengeWatch<T> {
  private readonly watched: Watched<T>[] = []

  /** A gate's 401: watched for a retry. */
  refused(record: RequestRecord, refusal: T): void {
    this.watched.push({
      method: record.method,
      path: pathOf(record.target),
      ...(record.connection !== undefined && { connection: record.connection }),
      ...(addressOf(record.client) !== undefined && { address: addressOf(record.client) }),
      startedAt: record.startedAt,
      refusal
    })
    if (this.watched.length > REFUSALS_WATCHED) this.watched.shift()
  }

  /** The refusal that this admitted request answers, if any; it is then no longer watched. */
  answered(record: RequestRecord): T | undefined {
    if (!isAdmitted(record)) return undefined
    const path = pathOf(record.target)
    const address = addressOf(record.client)
    const index = this.watched.findIndex(
      watched =>
        watched.method === record.method &&
        watched.path === path &&
        record.startedAt >= watched.startedAt &&
        record.startedAt - watched.startedAt <= CHALLENGE_WINDOW_MS &&
        ((watched.connection !== undefined && watched.connection === record.connection) ||
          (watched.address !== undefined && watched.address === address))
    )
    if (index < 0) return undefined
    return this.watched.splice(index, 1)[0].refusal
  }
}

/** The target's path: the query is not compared (a redacted one reads the same anyway). */
function pathOf(target: string): string {
  const query = target.indexOf('?')
  return query < 0 ? target : target.slice(0, query)
}

/** `addr` of `addr:port` or `[v6]:port`: a retry comes from another port of the same client. */
export function addressOf(client: string | undefined): string | undefined {
  if (client === undefined || client === '') return undefined
  if (client.startsWith('[')) return client.slice(0, client.indexOf(']') + 1) || client
  const colons = client.split(':').length - 1
  return colons === 1 ? client.slice(0, client.indexOf(':')) : client
}
