/**
 * Checks on words this action writes to the runner, shared by option parsing, the service's
 * answers and saved state: a bare host, a clean identifier, a port. Each answers a question; the
 * caller says what was wrong in its own terms.
 */
import { isIP } from 'node:net'
import { hasUnsafeCharacter, isWellFormed } from './printable.js'

const HOSTNAME_PATTERN =
  /^(?=.{1,253}\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/

/** A hostname or IP address alone: no scheme, port, path or brackets. */
export function isBareHost(value: string): boolean {
  if (isIP(value) !== 0) return true
  return HOSTNAME_PATTERN.test(value)
}

/** A TCP port: a whole number from 1 to 65535. */
export function isPort(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= 65535
}

/** True for a value that could be a token or tunnel user: one clean, printable word. */
export function isCleanIdentifier(value: unknown): value is string {
  return identifierProblem(value) === undefined
}

/** Why a value is not a clean identifier, as the end of a sentence ("is missing"); undefined if it is. */
export function identifierProblem(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return 'is missing'
  if (typeof value !== 'string') return 'is not a string'
  if (hasUnsafeCharacter(value)) return 'holds whitespace or control characters'
  // UTF-8 cannot carry a lone surrogate: the runner's files would hold U+FFFD instead, a value
  // the service does not know.
  if (!isWellFormed(value)) return 'is not well-formed Unicode'
  return undefined
}
