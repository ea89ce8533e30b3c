/**
 * Which headers' values the request log replaces by default: a rule on names rather than a list,
 * since every service names its credential header its own way (`X-Gitlab-Token`, `Private-Token`,
 * `X-Amz-Security-Token`, …). The names kept are those a reader or `replay` needs and that hold
 * no reusable credential: a webhook signature is an HMAC of one body, worthless for another, and
 * `replay` needs it to reproduce a delivery. docs/traffic.md lists the same rule; keep both equal.
 */

/** Redacted by their whole name (compared in lower case). */
export const CREDENTIAL_HEADER_NAMES: readonly string[] = ['authorization', 'proxy-authorization']

/** A name that contains one of these (in any case) is a credential header. */
export const CREDENTIAL_NAME_WORDS: readonly string[] = [
  'token',
  'secret',
  'password',
  'passwd',
  'session',
  'cookie',
  'credential',
  'api-key',
  'apikey'
]

/** Kept as they are, whatever the rule above would say, and never read for URLs either. */
export const KEPT_HEADER_NAMES: readonly string[] = [
  'www-authenticate',
  'sec-websocket-key',
  'idempotency-key'
]

/**
 * Webhook signature headers are a class: `Stripe-Signature`, `X-Hub-Signature`,
 * `X-Hub-Signature-256`, `X-Slack-Signature`, `X-Twilio-Signature`, and any other sender's
 * `…-Signature` or `…-Signature-256`.
 */
const SIGNATURE_HEADER = /(^|-)signature(-\d+)?$/

/** Whether a header's value is kept as sent: the keep list and the signature class. */
export function isKeptHeader(name: string): boolean {
  const lower = name.toLowerCase()
  return KEPT_HEADER_NAMES.includes(lower) || SIGNATURE_HEADER.test(lower)
}

/** Whether a header's value is a credential, replaced whole in the redacted log. */
export function isCredentialHeader(name: string): boolean {
  const lower = name.toLowerCase()
  if (isKeptHeader(lower)) return false
  return (
    CREDENTIAL_HEADER_NAMES.includes(lower) ||
    CREDENTIAL_NAME_WORDS.some(word => lower.includes(word))
  )
}

export type HeaderKind = 'kept' | 'credential' | 'other'

/** Names seen remembered at most: the same few dozen names come on every request. */
const NAMES_REMEMBERED = 512

/**
 * What the rule says of a name, remembered: the log runs it for every header of every request,
 * and a flood must not make the tunnel slower for it (the cache is cleared when full). `known` is
 * the cache itself, given only by a test that checks its bound.
 */
export function headerKindCache(
  known = new Map<string, HeaderKind>()
): (name: string) => HeaderKind {
  return name => {
    let kind = known.get(name)
    if (kind !== undefined) return kind
    kind = isKeptHeader(name) ? 'kept' : isCredentialHeader(name) ? 'credential' : 'other'
    if (known.size >= NAMES_REMEMBERED) known.clear()
    known.set(name, kind)
    return kind
  }
}
