/**
 * Checks on words this action writes to the runner, shared by option parsing, the service's
 * answers and saved state: a bare host, a clean identifier, a port, and whether a value holds a
 * secret. Each answers a question; the caller says what was wrong in its own terms.
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
