import { isIP } from 'node:net'
import { ActionError } from './errors.js'
import { isWellFormed } from './printable.js'

export type Flavour = 'cicd' | 'free'

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
// Whitespace or control characters in a token would break the KEY=value lines of GITHUB_ENV.
const UNSAFE_CHARACTER = /[\s\p{Cc}\p{Cf}]/u

/** The secret strings in a raw response, so they can be masked before anything else happens. */
export function secretsIn(raw: unknown): string[] {
  if (!isObject(raw)) return []
  return [raw.token, raw.tunnel_client_secret].filter(
    (value): value is string => typeof value === 'string' && value.length > 0
  )
}

/**
 * The tunnel user of a credential the service has issued, when the answer holds a token and a
 * user that each pass their own checks: from then on the credential exists and can be revoked,
 * even if another field makes the answer unusable.
 */
export function issuedTunnelUser(raw: unknown): string | undefined {
  if (!isObject(raw)) return undefined
  const token = raw.token ?? raw.tunnel_client_secret
  const tunnelUser = raw.tunnel_user ?? raw.tunnel_client_id
  return isCleanIdentifier(token) && isCleanIdentifier(tunnelUser) ? tunnelUser : undefined
}

/**
 * Turns the service's JSON into a Credential, or throws an ActionError that names what was wrong.
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
  checkSecretLike(tunnelUser, 'tunnel_user')

  const clientId = raw.client_id ?? raw.tunnel_client_id ?? tunnelUser
  checkSecretLike(clientId, 'client_id')

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

/** True when the credential's expiry has passed at `nowMs`; unknown expiry counts as live. */
export function hasExpired(expiresAt: string | undefined, nowMs: number): boolean {
  if (!expiresAt) return false
  const at = Date.parse(expiresAt)
  return Number.isFinite(at) && at <= nowMs
}

function checkSecretLike(value: unknown, field: string): asserts value is string {
  const problem = secretLikeProblem(value)
  // The value is not quoted: for the token it is a secret, and the others may be hostile.
  if (problem !== undefined) throw invalid(`${field} ${problem}`)
}

/** True for a value that could be a token or tunnel user: one clean, printable word. */
export function isCleanIdentifier(value: unknown): value is string {
  return secretLikeProblem(value) === undefined
}

function secretLikeProblem(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return 'is missing'
  if (typeof value !== 'string') return 'is not a string'
  if (UNSAFE_CHARACTER.test(value)) return 'holds whitespace or control characters'
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
    !UNSAFE_CHARACTER.test(value) &&
    isWellFormed(value)
  )
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function invalid(what: string): ActionError {
  return new ActionError(
    `The credential service sent a credential that failed validation: ${what}. Nothing was exported. ` +
      'Check that base-url points at the credential service; if it does, report this to the service operator.'
  )
}
