/**
 * The secrets in a credential answer, found before anything else happens so they can be masked,
 * and the check that a value meant to be shown holds none of them, whole or in part.
 */
import { isObject } from './answer-fields.js'

/** The secret strings in a raw response, so they can be masked before anything else happens. */
export function secretsIn(raw: unknown): string[] {
  if (!isObject(raw)) return []
  return [raw.token, raw.tunnel_client_secret].filter(
    (value): value is string => typeof value === 'string' && value.length > 0
  )
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
      // Stryker disable next-line ConditionalExpression,EqualityOperator: a secret of 8 or fewer counts whole, which includes() has already checked; shareRun finds no window in a shorter one
      (secret.length >= 8 && shareRun(value, secret, Math.max(8, Math.ceil(secret.length / 2))))
  )
}

/**
 * True when `a` and `b` have `length` characters in a row in common. Rabin-Karp: hashes of every
 * window of `b`, then one rolling pass over `a`; linear, since the service's strings may be huge.
 */
function shareRun(a: string, b: string, length: number): boolean {
  // Stryker disable next-line all: a speed shortcut; a string shorter than the window has no window, so the slow path answers false too
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
    // Stryker disable next-line ArrayDeclaration: a stand-in only checks b's start, whose hash is always in the map
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
  // Stryker disable next-line EqualityOperator: one more turn reads charCodeAt past the end (NaN), hashes 0 and compares a shorter piece, found only on a 2^-32 collision
  for (let i = 0; i < text.length; i++) {
    // Stryker disable next-line ConditionalExpression: before a full window, charCodeAt(negative) is NaN and Math.imul(NaN, n) is 0, so there is nothing to subtract
    if (i >= length) hash = hash - Math.imul(text.charCodeAt(i - length), highest)
    hash = (Math.imul(hash, base) + text.charCodeAt(i)) | 0
    if (i >= length - 1 && visit(hash, i - length + 1)) return true
  }
  return false
}
