/**
 * The service's credential answer, parsed and checked (pure): all or nothing, so that nothing is
 * written to the runner from an answer that is wrong anywhere.
 */
import { ExplainedError } from '../errors.js'
import { isIsoTime } from '../text/iso-time.js'
import { hasUnsafeCharacter, isWellFormed } from '../text/printable.js'
import { identifierProblem, isBareHost, isPort } from '../text/validators.js'
import { holdsCommandMarker } from '../text/log-commands.js'
import { contradictorySpellings, isObject, tokenOf, tunnelUserOf } from './answer-fields.js'
import { holdsSecret, secretsIn } from './answer-secrets.js'
import { readAnswerUrlFields, type AnswerUrlFields } from './answer-url.js'

/** A validated tunnel credential: every field is safe to write to the runner's files. */
export interface Credential extends AnswerUrlFields {
  token: string
  tunnelUser: string
  clientId: string
  tunnelHost: string
  tunnelPort: number
  /** True when the service sent no port and the documented default was used. */
  portDefaulted: boolean
  /** Absent: the credential does not expire (`ttl_minutes: 0`, or no `expires_at`). */
  expiresAt?: string
  /** 0: no expiry, as the product's own action asks for it. */
  ttlMinutes?: number
  projectSlug?: string
}

export interface Overrides {
  tunnelHost?: string
  tunnelPort?: number
}

export const DEFAULT_TUNNEL_PORT = 2223

/**
 * Turns the service's JSON into a Credential, or throws an ExplainedError that names what was wrong.
 * All or nothing: the caller writes nothing to the runner unless this returns.
 * Some deployments answer with the free credential's field names, so both spellings are read.
 */
export function parseCredential(raw: unknown, overrides: Overrides = {}): Credential {
  if (!isObject(raw)) {
    throw invalid('the body is not a JSON object')
  }
  const contradiction = contradictorySpellings(raw)
  if (contradiction !== undefined) {
    // Neither value is quoted: one may be the token, the other hostile.
    const [spec, product] = contradiction
    throw invalid(`${spec} and ${product} differ, so the answer names two credentials`)
  }
  const token = tokenOf(raw)
  const tunnelUser = tunnelUserOf(raw)
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
    isWholeNumber,
    'a whole number (0: no expiry)'
  )
  if (ttlMinutes === 0 && expiresAt !== undefined) {
    throw invalid('ttl_minutes is 0 (no expiry), yet expires_at gives an end')
  }
  const projectSlug = optional(
    raw.project_slug,
    'project_slug',
    isSafeText,
    'a plain string without log command markers'
  )

  const urlFields = readAnswerUrlFields(raw, invalid)

  return {
    ...urlFields,
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

function checkSecretLike(value: unknown, field: string): asserts value is string {
  const problem = identifierProblem(value)
  // The value is not quoted: for the token it is a secret, and the others may be hostile.
  if (problem !== undefined) throw invalid(`${field} ${problem}`)
}

/**
 * The user and client id are exported unmasked, printed, and echoed by later steps, so beyond being
 * clean words they must hold no secret and nothing a CI system's log reader would obey.
 */
function checkIdentifier(
  value: unknown,
  field: string,
  secrets: string[]
): asserts value is string {
  checkSecretLike(value, field)
  if (holdsSecret(value, secrets)) throw invalid(`${field} holds the token, or a long piece of it`)
  if (holdsCommandMarker(value)) {
    throw invalid(
      `${field} holds a log command marker (such as "::", or "#" followed by "#[" or "#vso[")`
    )
  }
}

function parsePort(value: unknown): number {
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d{1,5}$/.test(value)
        ? Number(value)
        : NaN
  if (!isPort(number)) {
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

function isWholeNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

function isSafeText(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length <= 200 &&
    !hasUnsafeCharacter(value) &&
    isWellFormed(value) &&
    // Printed in the summary and exported as it is, like the user and client id.
    !holdsCommandMarker(value)
  )
}

function invalid(what: string): ExplainedError {
  return new ExplainedError(
    `The credential service sent a credential that failed validation: ${what}. Nothing was exported. ` +
      'Check that base-url points at the credential service; if it does, report this to the service operator.'
  )
}
