/**
 * Text that did not come from this code (inputs, saved state, the service's answers, file paths)
 * passes through here before it reaches a log line. Every supported CI system reads each line of a
 * job's output for its own commands (log-commands.ts), so such a value could switch masking off or
 * set a pipeline variable.
 */
import { neutraliseMarkers } from './log-commands.js'

// Control and format characters, line and paragraph separators, and lone surrogates: anything
// that could end a line on some reader, or hide what a line says.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu

// Printable ASCII, space to tilde, holds none of the characters the Unicode classes here look for,
// and nearly every value a step handles is printable ASCII. It is tested first because V8 builds
// a Unicode property class the first time it is used, 0.1 to 0.5 ms each on this machine: the
// main step paid about 1.5 ms of its start-up for them.
// Stryker disable next-line Regex: a fast path only; the property tests compare it with the Unicode classes
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/

/** True when `value` holds whitespace, a control or a format character (a KEY=value line breaker). */
export function hasUnsafeCharacter(value: string): boolean {
  // Stryker disable next-line ConditionalExpression: without the fast path the Unicode class answers the same
  if (PRINTABLE_ASCII.test(value)) return value.includes(' ')
  return /[\s\p{Cc}\p{Cf}]/u.test(value)
}

/** True when `value` holds a control character (C0, DEL or C1). */
export function hasControlCharacter(value: string): boolean {
  return !PRINTABLE_ASCII.test(value) && /\p{Cc}/u.test(value)
}

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
 * `value` on one line, each unprintable character written as a \uXXXX escape, and the first
 * character of every log command marker of every supported CI system too, cut to `max`
 * characters. The escape keeps what was there visible without letting it act.
 */
export function printable(value: string, max = 200): string {
  const flat = PRINTABLE_ASCII.test(value)
    ? value
    : value.replace(
        UNPRINTABLE,
        character => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`
      )
  const escaped = neutraliseMarkers(flat)
  if (escaped.length <= max) return escaped
  // Never cut between the two halves of a surrogate pair: the half left would be unprintable.
  // Stryker disable next-line StringLiteral: any stand-in without a high surrogate reads the same
  const end = /[\uD800-\uDBFF]/.test(escaped[max - 4] ?? '') ? max - 4 : max - 3
  return `${escaped.slice(0, end)}...`
}

/**
 * A file path for a message: a folder's name is outside text too (a checkout's folder, a
 * `--work-dir`), so it is made printable like any other, with room for a deep path.
 */
export function printablePath(path: string): string {
  return printable(path, 400)
}

/**
 * A short, single-line version of untrusted prose from the service: runs of blanks become one
 * space, and anything shaped like a credential becomes `***`, since a careless service may echo
 * the token it issued, which is not masked yet, or the API key.
 */
export function cleanText(value: string, max: number): string {
  const redacted = redactCredentials(value)
  const flat = (
    PRINTABLE_ASCII.test(redacted)
      ? redacted
      : redacted.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ')
  )
    .replace(/\s+/g, ' ')
    .trim()
  return printable(flat, max)
}

// Anything shaped like a credential: this action's token and API key forms, and long runs of hex or
// base64 as secrets of other shapes tend to be. Ordinary words are shorter than these runs. Hex
// counts from 8 characters: a token that a line break or a stray character cut in two must not
// leave a long tail in clear (the `tok_` part goes by its prefix, the rest by this).
const CREDENTIAL_SHAPED = [
  /\b(?:tok|sk)_[A-Za-z0-9_\-.+/=]*/g,
  /[A-Fa-f0-9]{8,}/g,
  /[A-Za-z0-9+/_-]{24,}={0,2}/g
]

/** `text` with every credential-shaped run replaced by `***`. */
export function redactCredentials(text: string): string {
  return CREDENTIAL_SHAPED.reduce((result, pattern) => result.replace(pattern, '***'), text)
}
