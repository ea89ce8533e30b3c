/**
 * Finds the run's secrets (tunnel token, API key, the gate's secret) in recorded text in every
 * form a client may have sent them: as they are, percent-encoded (any character may be, in
 * either case of hex), JSON-escaped, base64 as a whole, and cut short at the end of a body that
 * the log cut. A secret the log holds in any of these forms is as good as in clear.
 */

/** Shortest start of a secret hidden where a cut body ends: fewer characters tell too little. */
const SHORTEST_CUT_SECRET = 4

export interface SecretPatterns {
  /** Every whole occurrence, in any form (global). */
  whole: RegExp
  /** A start of a secret (4 characters or more) that ends the text: a body cut in its middle. */
  cutAtEnd: RegExp
}

/** Patterns for the non-empty `secrets`, or undefined when there is none. */
export function secretPatterns(secrets: readonly string[]): SecretPatterns | undefined {
  const kept = [...new Set(secrets.filter(secret => secret.length > 0))].sort(
    (a, b) => b.length - a.length
  )
  if (kept.length === 0) return undefined
  const wholeForms: string[] = []
  const cutForms: string[] = []
  for (const secret of kept) {
    for (const units of unitSequences(secret)) {
      wholeForms.push(units.join(''))
      if (units.length > SHORTEST_CUT_SECRET) cutForms.push(startsOf(units))
    }
    for (const encoded of base64Forms(secret)) wholeForms.push(escapeRegExp(encoded))
  }
  return {
    whole: new RegExp(wholeForms.join('|'), 'g'),
    cutAtEnd: new RegExp(`(?:${cutForms.length > 0 ? cutForms.join('|') : '(?!)'})$`)
  }
}

/**
 * The secret as a list of one pattern per character, read two ways: as the string it is (text
 * the HTTP layer decoded as UTF-8), and as its UTF-8 bytes taken one byte per character (headers
 * and bodies read as latin1). The two are the same for an ASCII secret.
 */
function unitSequences(secret: string): string[][] {
  const asText = [...secret].map(character => unitPattern(character, utf8Bytes(character)))
  const bytes = [...Buffer.from(secret, 'utf8')]
  const asBytes = bytes.map(byte => unitPattern(String.fromCharCode(byte), [byte]))
  // Stryker disable next-line StringLiteral: a comparison made false lists an ASCII secret twice, which finds the same text
  return asBytes.join('') === asText.join('') ? [asText] : [asText, asBytes]
}

function utf8Bytes(character: string): number[] {
  return [...Buffer.from(character, 'utf8')]
}

/** One character: itself, its percent-encoding, its JSON escape (and `\/` for a slash). */
function unitPattern(character: string, bytes: number[]): string {
  const forms = [escapeRegExp(character), bytes.map(byte => `%${hexPattern(byte, 2)}`).join('')]
  const code = character.codePointAt(0)!
  if (code <= 0xffff) forms.push(`\\\\u${hexPattern(code, 4)}`)
  if (character === '/') forms.push('\\\\/')
  return `(?:${forms.join('|')})`
}

/** A number in hex, each letter digit in either case: `%2f` and `%2F` are the same slash. */
function hexPattern(value: number, width: number): string {
  return [...value.toString(16).padStart(width, '0')]
    .map(digit => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit))
    .join('')
}

/** `u1u2u3u4(?:u5(?:u6)?)?`: every start of the secret from 4 units up to one short of whole. */
function startsOf(units: string[]): string {
  let tail = ''
  for (let index = units.length - 2; index >= SHORTEST_CUT_SECRET; index--) {
    tail = `(?:${units[index]}${tail})?`
  }
  return `${units.slice(0, SHORTEST_CUT_SECRET).join('')}${tail}`
}

/** The secret base64-encoded on its own, padded or not, and in the URL alphabet. */
function base64Forms(secret: string): string[] {
  const standard = Buffer.from(secret, 'utf8').toString('base64')
  const url = Buffer.from(secret, 'utf8').toString('base64url')
  return [...new Set([standard, standard.replace(/=+$/, ''), url])].filter(
    form => form.length >= SHORTEST_CUT_SECRET
  )
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')
}
