import { isIP } from 'node:net'
import { ExplainedError } from '../errors.js'
import { hasUnsafeCharacter, isWellFormed } from '../text/printable.js'

export type Flavour = 'cicd' | 'free' | 'existing'

/** A validated tunnel credential: every field is safe to write to the runner's files. */
export interface Credential {
  flavour: Flavour
  token: string
  tunnelUser: string
  clientId: string
  tunnelHost: string
  tunnelPort: number
  /** True when the service sent no port and the documented default was used. */
  portDefaulted: boolean
  expiresAt?: string
  ttlMinutes?: number
  projectSlug?: string
}

export interface Overrides {
  tunnelHost?: string
  tunnelPort?: number
}

export const DEFAULT_TUNNEL_PORT = 2223

const HOSTNAME_PATTERN =
  /^(?=.{1,253}\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/
const ISO_8601_PATTERN =
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/
// What makes the runner read a line as a command: `##[name]` anywhere, `::name::` at a line's start.
const WORKFLOW_COMMAND_MARKER = /##\[|::/

/** The secret strings in a raw response, so they can be masked before anything else happens. */
export function secretsIn(raw: unknown): string[] {
  if (!isObject(raw)) return []
  return [raw.token, raw.tunnel_client_secret].filter(
    (value): value is string => typeof value === 'string' && value.length > 0
  )
}

/** A credential the service has issued, whether or not this action can use it. */
export interface IssuedCredential {
  /** As the service sent it: it goes back to the service JSON-encoded, never raw to a log. */
  tunnelUser: string
  /**
   * False when the user holds a secret of the answer (the token sent again as the user): it may
   * then be sent back to the service to revoke it, but never saved in state nor printed.
   */
  nameable: boolean
  /** True when the user is also a clean word that state can hold and post read back. */
  savable: boolean
}

/**
 * The tunnel user of a credential the service has issued: an answer that names one user (a
 * non-empty string) has made a credential, even if its token or the user itself is unusable here
 * (zero-width or bidi characters, a non-ASCII name). From then on it must be revoked, whatever
 * else makes the answer unusable.
 */
export function issuedCredential(raw: unknown): IssuedCredential | undefined {
  if (!isObject(raw)) return undefined
  const tunnelUser = raw.tunnel_user ?? raw.tunnel_client_id
  if (typeof tunnelUser !== 'string' || tunnelUser === '') return undefined
  const nameable = !holdsSecret(tunnelUser, secretsIn(raw))
  return { tunnelUser, nameable, savable: nameable && isCleanIdentifier(tunnelUser) }
}

/**
 * Turns the service's JSON into a Credential, or throws an ExplainedError that names what was wrong.
 * All or nothing: the caller writes nothing to the runner unless this returns.
 * Some deployments answer with the free credential's field names, so both spellings are read.
 */
export function parseCredential(
  raw: unknown,
  flavour: Flavour,
  overrides: Overrides = {}
): Credential {
  if (!isObject(raw)) {
    throw invalid('the body is not a JSON object')
  }
  const token = raw.token ?? raw.tunnel_client_secret
  const tunnelUser = raw.tunnel_user ?? raw.tunnel_client_id
  checkSecretLike(token, 'token')
  const secrets = secretsIn(raw)
  checkIdentifier(tunnelUser, 'tunnel_user', secrets)

  const clientId = raw.client_id ?? raw.tunnel_client_id ?? tunnelUser
  checkIdentifier(clientId, 'client_id', secrets)

  const tunnelHost = overrides.tunnelHost ?? raw.tunnel_host
  if (tunnelHost === undefined || tunnelHost === null || tunnelHost === '') {
    throw invalid(
      'tunnel_host is missing; set the tunnel-host input if your tunnel server is self-hosted'
    )
  }
  if (typeof tunnelHost !== 'string' || !isBareHost(tunnelHost)) {
    throw invalid('tunnel_host is not a bare hostname or IP address')
  }

  const rawPort = overrides.tunnelPort ?? raw.tunnel_port
  const portDefaulted = rawPort === undefined || rawPort === null
  const tunnelPort = portDefaulted ? DEFAULT_TUNNEL_PORT : parsePort(rawPort)

  const expiresAt = optional(raw.expires_at, 'expires_at', isIsoTime, 'an ISO 8601 time')
  const ttlMinutes = optional(
    raw.ttl_minutes,
    'ttl_minutes',
    isPositiveInteger,
    'a positive whole number'
  )
  const projectSlug = optional(raw.project_slug, 'project_slug', isSafeText, 'a plain string')

  return {
    flavour,
    token: token as string,
    tunnelUser: tunnelUser as string,
    clientId: clientId as string,
    tunnelHost,
    tunnelPort,
    portDefaulted,
    ...(expiresAt !== undefined && { expiresAt }),
    ...(ttlMinutes !== undefined && { ttlMinutes }),
    ...(projectSlug !== undefined && { projectSlug })
  }
}

export function isBareHost(value: string): boolean {
  if (isIP(value) !== 0) return true
  return HOSTNAME_PATTERN.test(value)
}

function checkSecretLike(value: unknown, field: string): asserts value is string {
  const problem = secretLikeProblem(value)
  // The value is not quoted: for the token it is a secret, and the others may be hostile.
  if (problem !== undefined) throw invalid(`${field} ${problem}`)
}

/**
 * The user and client id are exported unmasked, printed, and echoed by later steps, so beyond being
 * clean words they must hold no secret and nothing the runner would read as a workflow command.
 */
function checkIdentifier(
  value: unknown,
  field: string,
  secrets: string[]
): asserts value is string {
  checkSecretLike(value, field)
  if (holdsSecret(value, secrets)) throw invalid(`${field} holds the token, or a long piece of it`)
  if (WORKFLOW_COMMAND_MARKER.test(value)) {
    throw invalid(`${field} holds a workflow command marker (## followed by [, or ::)`)
  }
}

/**
 * True when `value` holds a secret, or a long piece of one: the token with one character slipped in
 * still shows most of it. A piece counts from half the secret's length, and at least 8 characters
 * (a shorter secret counts only whole), so a value that shares a few characters with a token by
 * chance, or by a token format that embeds a short id, is not refused.
 */
export function holdsSecret(value: string, secrets: string[]): boolean {
  return secrets.some(
    secret =>
      value.includes(secret) ||
      (secret.length >= 8 && shareRun(value, secret, Math.max(8, Math.ceil(secret.length / 2))))
  )
}

/**
 * True when `a` and `b` have `length` characters in a row in common. Rabin-Karp: hashes of every
 * window of `b`, then one rolling pass over `a`; linear, since the service's strings may be huge.
 */
function shareRun(a: string, b: string, length: number): boolean {
  if (a.length < length || b.length < length) return false
  const starts = new Map<number, number[]>()
  forEachWindow(b, length, (hash, start) => {
    const list = starts.get(hash)
    if (list) list.push(start)
    else starts.set(hash, [start])
    return false
  })
  return forEachWindow(a, length, (hash, start) => {
    const piece = a.slice(start, start + length)
    return (starts.get(hash) ?? []).some(other => b.startsWith(piece, other))
  })
}

/** Calls `visit` with the hash of each `length`-character window of `text` until it returns true. */
function forEachWindow(
  text: string,
  length: number,
  visit: (hash: number, start: number) => boolean
): boolean {
  const base = 257
  let highest = 1
  for (let i = 1; i < length; i++) highest = Math.imul(highest, base)
  let hash = 0
  for (let i = 0; i < text.length; i++) {
    if (i >= length) hash = hash - Math.imul(text.charCodeAt(i - length), highest)
    hash = (Math.imul(hash, base) + text.charCodeAt(i)) | 0
    if (i >= length - 1 && visit(hash, i - length + 1)) return true
  }
  return false
}

/** True for a value that could be a token or tunnel user: one clean, printable word. */
export function isCleanIdentifier(value: unknown): value is string {
  return secretLikeProblem(value) === undefined
}

function secretLikeProblem(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return 'is missing'
  if (typeof value !== 'string') return 'is not a string'
  if (hasUnsafeCharacter(value)) return 'holds whitespace or control characters'
  // UTF-8 cannot carry a lone surrogate: the runner's files would hold U+FFFD instead, a value
  // the service does not know.
  if (!isWellFormed(value)) return 'is not well-formed Unicode'
  return undefined
}

function parsePort(value: unknown): number {
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d{1,5}$/.test(value)
        ? Number(value)
        : NaN
  if (!Number.isInteger(number) || number < 1 || number > 65535) {
    throw invalid('tunnel_port is not a whole number from 1 to 65535')
  }
  return number
}

function optional<T>(
  value: unknown,
  field: string,
  check: (value: unknown) => value is T,
  expected: string
): T | undefined {
  if (value === undefined || value === null) return undefined
  if (!check(value)) throw invalid(`${field} is not ${expected}`)
  return value
}

function isIsoTime(value: unknown): value is string {
  return (
    typeof value === 'string' && ISO_8601_PATTERN.test(value) && Number.isFinite(Date.parse(value))
  )
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0
}

function isSafeText(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length <= 200 &&
    !hasUnsafeCharacter(value) &&
    isWellFormed(value)
  )
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function invalid(what: string): ExplainedError {
  return new ExplainedError(
    `The credential service sent a credential that failed validation: ${what}. Nothing was exported. ` +
      'Check that base-url points at the credential service; if it does, report this to the service operator.'
  )
}
