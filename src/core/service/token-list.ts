import { ServiceError } from './service-error.js'

/** An entry of `user-tokens-list`, as far as this tool reads it: whose token, and its state. */
export interface ListedToken {
  tunnelUser: string
  /** The spec names only `active`; anything else can no longer log in. */
  status: string
}

/**
 * Checks a `user-tokens-list` answer (`{ tokens: [...] }`) and keeps what this tool reads of each
 * entry. The list is what a refused login is judged by, so an entry that does not say whose
 * token it is or its status makes the whole answer unusable rather than silently skipped.
 * The messages name the fault, never a value: the list is outside text.
 */
export function readTokenList(raw: unknown): ListedToken[] {
  const tokens =
    typeof raw === 'object' && raw !== null ? (raw as { tokens?: unknown }).tokens : undefined
  if (!Array.isArray(tokens)) throw unusable('it holds no tokens list')
  return (tokens as unknown[]).map((entry, index) => {
    const record =
      typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {}
    if (typeof record.tunnel_user !== 'string' || typeof record.status !== 'string') {
      throw unusable(`entry ${index + 1} has no tunnel_user or status text`)
    }
    return { tunnelUser: record.tunnel_user, status: record.status }
  })
}

function unusable(why: string): ServiceError {
  return new ServiceError('bad-response', 'user-tokens-list', `its answer is unusable: ${why}`)
}
