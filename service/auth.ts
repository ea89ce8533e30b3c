/**
 * Who is calling: an API key from `X-API-Key`, or a session from `Authorization: Bearer`, and
 * the account it acts for. Every JWT belongs to the default account; a key to its own owner.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { ApiKeyRecord, KeyRing, Scope } from './keys.js'
import { DEFAULT_OWNER } from './seed.js'

export type Caller =
  { method: 'api-key'; key: ApiKeyRecord; owner: string } | { method: 'jwt'; owner: string }

export interface Credentials {
  keys: KeyRing
  jwts: ReadonlySet<string>
}

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

/**
 * The caller, or null when no valid credential was sent. A present but unknown X-API-Key
 * is not rescued by a valid bearer token: a client that sends a wrong key should hear so.
 */
export function identifyCaller(
  headers: IncomingHttpHeaders,
  credentials: Credentials,
  now: number
): Caller | null {
  const apiKey = header(headers, 'x-api-key')
  if (apiKey !== undefined) {
    const key = credentials.keys.find(apiKey.trim(), now)
    return key === undefined ? null : { method: 'api-key', key, owner: key.owner }
  }
  const authorization = header(headers, 'authorization')
  const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization)
  if (match !== null && credentials.jwts.has(match[1]))
    return { method: 'jwt', owner: DEFAULT_OWNER }
  return null
}

/** API-key callers need the scope; a JWT is a full session and may do anything. */
export const callerHasScope = (caller: Caller, scope: Scope): boolean =>
  caller.method === 'jwt' || caller.key.scopes.includes(scope)
