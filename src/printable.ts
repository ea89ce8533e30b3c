/**
 * Text that did not come from this code (inputs, saved state, the service's answers) passes
 * through here before it reaches a log line. The runner reads every line of the step's output as a
 * possible workflow command, so a value that could start a line could switch masking off.
 */

// Control and format characters, line and paragraph separators, and lone surrogates: anything
// that could end a line on some reader, or hide what a line says.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu

/** True when `value` holds no line break of any kind (CR, LF, NEL, U+2028, U+2029). */
export function hasLineBreak(value: string): boolean {
  return /[\r\n\u0085\u2028\u2029]/.test(value)
}

/**
 * String.prototype.isWellFormed (Node 20 has it; the project's TypeScript lib predates it): false
 * when the string holds an unpaired UTF-16 surrogate, which UTF-8 cannot carry.
 */
export function isWellFormed(value: string): boolean {
  return (value as unknown as { isWellFormed(): boolean }).isWellFormed()
}

/**
 * `value` on one line, each unprintable character written as a \uXXXX escape, cut to `max`
 * characters. The escape keeps what was there visible without letting it act.
 */
export function printable(value: string, max = 200): string {
  const escaped = value.replace(
    UNPRINTABLE,
    character => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`
  )
  if (escaped.length <= max) return escaped
  // Never cut between the two halves of a surrogate pair: the half left would be unprintable.
  const end = /[\uD800-\uDBFF]/.test(escaped[max - 4] ?? '') ? max - 4 : max - 3
  return `${escaped.slice(0, end)}...`
}

/** A short, single-line version of untrusted prose from the service: runs of blanks become one space. */
export function cleanText(value: string, max: number): string {
  const flat = value
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  return printable(flat, max)
}

// Anything shaped like a credential: this action's token and API key forms, and long runs of hex or
// base64 as secrets of other shapes tend to be. Ordinary words are shorter than these runs.
const CREDENTIAL_SHAPED = [
  /\b(?:tok|sk)_[A-Za-z0-9_\-.+/=]*/g,
  /[A-Fa-f0-9]{16,}/g,
  /[A-Za-z0-9+/_-]{24,}={0,2}/g
]

/** `text` with every credential-shaped run replaced by `***`. */
export function redactCredentials(text: string): string {
  return CREDENTIAL_SHAPED.reduce((result, pattern) => result.replace(pattern, '***'), text)
}
