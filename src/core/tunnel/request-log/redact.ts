/**
 * What of a request may be written down. Job summaries and artifacts of public repositories are
 * public, so the log is private by default: no bodies, the values of the headers that carry
 * credentials replaced (header-rule.ts), and every URL redacted by one rule (url-redact.ts). The run's own secrets (tunnel token, API key,
 * the gate's secret) are removed in every case, even with headers unredacted, wherever they
 * appear: a path prefix, a header, a body, inside a Basic credential.
 */
import type { RequestRecord } from './record.js'
import { headerKindCache } from './header-rule.js'
import { secretPatterns, type SecretPatterns } from './secret-pattern.js'
import { REDACTED, redactUrl, redactUrlsInHeader } from './url-redact.js'

export { REDACTED }

export interface RedactionPolicy {
  /** `redacted` (default): credential headers' values, URLs' user-info and query values replaced. */
  headers: 'redacted' | 'unredacted'
  /** Bodies are kept only when the log-bodies option is on; the HTTP layer has cut them. */
  logBodies: boolean
  /** The run's secrets: removed from everything, whatever the policy says. */
  secrets: readonly string[]
}

// `Basic <base64 of user:password>`: the gate's secret hides inside it, out of reach of a search.
const BASIC_CREDENTIAL = /\b(basic\s+)([A-Za-z0-9+/_-]+={0,2})/gi

export type Redactor = (record: RequestRecord) => RequestRecord

/** Compiles the policy once; the returned function gives a copy of a record safe to write. */
export function makeRedactor(policy: RedactionPolicy): Redactor {
  const patterns = secretPatterns(policy.secrets)
  const scrub = (text: string): string => scrubText(text, patterns)
  const redactValues = policy.headers === 'redacted'
  const kindOf = headerKindCache()
  const headerValue = (name: string, value: string): string => {
    if (!redactValues) return value
    const kind = kindOf(name)
    if (kind === 'kept') return value
    return kind === 'credential' ? REDACTED : redactUrlsInHeader(name, value)
  }
  const headers = (list: [string, string][]): [string, string][] =>
    list.map(([name, value]) => [
      scrub(name),
      scrub(hideSecretsInBasic(headerValue(name, value), patterns))
    ])
  return record => {
    const redacted: RequestRecord = {
      ...record,
      entry: scrub(record.entry),
      method: scrub(record.method),
      target: scrub(redactValues ? redactUrl(record.target) : record.target),
      httpVersion: scrub(record.httpVersion),
      requestHeaders: headers(record.requestHeaders),
      responseHeaders: headers(record.responseHeaders),
      requestBody: undefined,
      responseBody: undefined,
      bodyTruncated: undefined
    }
    if (record.client !== undefined) redacted.client = scrub(record.client)
    if (!policy.logBodies) return redacted
    const cut = record.bodyTruncated ?? { request: false, response: false }
    if (record.requestBody)
      redacted.requestBody = scrubBody(record.requestBody, cut.request, patterns)
    if (record.responseBody) {
      redacted.responseBody = scrubBody(record.responseBody, cut.response, patterns)
    }
    if (record.bodyTruncated) redacted.bodyTruncated = { ...record.bodyTruncated }
    return redacted
  }
}

/** `text` with every form of every secret replaced. */
function scrubText(text: string, patterns: SecretPatterns | undefined): string {
  return patterns ? text.replace(patterns.whole, REDACTED) : text
}

/**
 * A body's bytes with every secret replaced, read one byte per character so that bytes that are
 * not UTF-8 come back unchanged; a cut body also loses a secret's start where it ends.
 */
function scrubBody(body: Buffer, cut: boolean, patterns: SecretPatterns | undefined): Buffer {
  if (!patterns) return Buffer.from(body)
  let text = body.toString('latin1').replace(patterns.whole, REDACTED)
  if (cut) text = text.replace(patterns.cutAtEnd, REDACTED)
  return Buffer.from(text, 'latin1')
}

/** A Basic credential whose decoded `user:password` holds a secret is replaced whole. */
function hideSecretsInBasic(value: string, patterns: SecretPatterns | undefined): string {
  if (!patterns) return value
  return value.replace(BASIC_CREDENTIAL, (match, scheme: string, encoded: string) => {
    const decoded = Buffer.from(encoded, 'base64')
    // search() ignores the global pattern's lastIndex; both readings, as the secret may be UTF-8.
    const holdsSecret = ['latin1', 'utf8'].some(
      encoding => decoded.toString(encoding as BufferEncoding).search(patterns.whole) >= 0
    )
    return holdsSecret ? `${scheme}${REDACTED}` : match
  })
}
