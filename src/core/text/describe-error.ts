import { printable, redactCredentials } from './printable.js'

/**
 * An error nobody expected, told in one line with anything shaped like a credential hidden: its
 * message may quote data this action was handling when it broke. File paths stay: they are
 * usually what explains the failure.
 */
export function describeUnexpected(error: unknown): string {
  // Duck-typed: an error made in another realm (Node's own fs errors, seen from a test's sandbox)
  // is no `instanceof Error` there, and String() would prefix its name.
  const message = (error as { message?: unknown } | null)?.message
  const detail = typeof message === 'string' ? message : String(error)
  return printable(redactErrorText(detail), 300)
}

/**
 * The message of an error nobody expected, with what looks like a credential hidden and file paths
 * kept: "EACCES ... '/home/runner/work/_temp/…/key'" is what tells the user what broke, and the
 * plain redaction (long runs of letters, digits and slashes) would turn every path into `***`.
 */
function redactErrorText(text: string): string {
  const framed = text
    .replace(PEM_BLOCK, '***')
    .replace(URL_USER_INFO, '$1***@')
    .replace(AUTH_SCHEME, '$1 ***')
    .replace(API_KEY_HEADER, '$1 ***')
  // split with a capturing pattern: odd indexes are the paths, even ones the text between them.
  return framed
    .split(FILE_PATH)
    .map((piece, index) => (index % 2 === 1 ? redactPath(piece) : redactCredentials(piece)))
    .join('')
}

// A private key, armoured; an unterminated block (a message cut short) is hidden to its end.
const PEM_BLOCK = /-----BEGIN [A-Z0-9 ]+-----[\s\S]*?(?:-----END [A-Z0-9 ]+-----|$)/g
// scheme://user:password@host
const URL_USER_INFO = /(\b[A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\s/@]+@/g
// "Authorization: Bearer <token>", "Basic <base64>"; not the word "token", which prose uses.
const AUTH_SCHEME = /\b([Bb]earer|[Bb]asic)\s+[^\s,;'"]+/g
const API_KEY_HEADER = /\b(X-API-Key:?)\s*[^\s,;'"]+/gi

// An absolute or relative POSIX path, or a Windows one: it starts where no word of a base64 run
// could go on, so a secret holding a slash is not taken for a path.
const FILE_PATH =
  /((?<![A-Za-z0-9+/=_.~-])(?:~|\.{1,2}|[A-Za-z]:)?(?:[/\\][A-Za-z0-9._@%+=,~-]+)+[/\\]?)/

/** A path keeps every segment but one that is itself credential-shaped. */
function redactPath(path: string): string {
  return path.replace(/[^/\\]+/g, segment => (looksLikeSecret(segment) ? '***' : segment))
}

/**
 * A `tok_`/`sk_` value, a long hex digest, or a long run that mixes upper and lower case and
 * digits as base64 does. Words joined by dashes and dots (folder names, mkdtemp's suffixes) are not.
 */
function looksLikeSecret(segment: string): boolean {
  if (/^(?:tok|sk)_/.test(segment)) return true
  if (/[A-Fa-f0-9]{32,}/.test(segment)) return true
  // Stryker disable next-line ArrayDeclaration: Stryker's stand-in has no digit, so like [] it holds no secret
  return (segment.match(/[A-Za-z0-9+=]{16,}/g) ?? []).some(
    run => /[A-Z]/.test(run) && /[a-z]/.test(run) && /\d/.test(run)
  )
}
