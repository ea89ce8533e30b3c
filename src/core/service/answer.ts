import { cleanText } from '../text/printable.js'
import { ServiceError, type Endpoint } from './service-error.js'

/**
 * Decides from status and body whether the call succeeded; pure, so every case is testable.
 * `nowMs` turns a Retry-After date into seconds.
 */
export function interpretAnswer(
  endpoint: Endpoint,
  status: number,
  text: string,
  retryAfterHeader?: string | string[],
  nowMs = Date.now()
): unknown {
  const parsed = parseJson(text)
  if (status >= 200 && status < 300) {
    // A revoke's answer carries nothing this action needs: any 2xx says it is done, body or not.
    if (endpoint === 'revoke-token') return parsed
    if (parsed === undefined) {
      // Not a word of a 2xx body is shown: it may be a credential cut short, not yet masked.
      throw new ServiceError(
        'bad-response',
        endpoint,
        text.trim()
          ? `HTTP ${status} with a body that is not JSON (${Buffer.byteLength(text)} bytes, not shown)`
          : `HTTP ${status} with an empty body`,
        status
      )
    }
    return parsed
  }
  const errorObject =
    typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {}
  // cleanText hides credential-shaped runs: a service may echo the token in its error or code.
  const code = typeof errorObject.code === 'string' ? cleanText(errorObject.code, 40) : undefined
  const message =
    typeof errorObject.error === 'string' ? cleanText(errorObject.error, 300) : undefined
  const retryAfter =
    readRetryAfter(errorObject.retry_after) ??
    readRetryAfterHeader(firstValue(retryAfterHeader), nowMs)
  const detail = `HTTP ${status}${code ? ` ${code}` : ''}${message ? `: ${message}` : parsed === undefined ? shortBody(text) : ''}`
  throw new ServiceError('http', endpoint, detail, status, code, message, retryAfter)
}

function parseJson(text: string): unknown {
  try {
    // A leading byte order mark is not part of the JSON: the WHATWG fetch standard's json() drops
    // it too, and some gateways add one.
    return JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text)
  } catch {
    return undefined
  }
}

/** The body's `retry_after`: whole seconds, as the service documents it. */
function readRetryAfter(value: unknown): number | undefined {
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d+$/.test(value.trim())
        ? Number(value)
        : NaN
  return Number.isFinite(number) && number >= 0 ? Math.ceil(number) : undefined
}

/** The Retry-After header: seconds, or an HTTP date (which starts with the day's name). */
function readRetryAfterHeader(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined || !/^[A-Za-z]{3}/.test(value.trim())) return readRetryAfter(value)
  const at = Date.parse(value)
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - nowMs) / 1000)) : undefined
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/**
 * An error answer's body, only when short enough to help and not flood the log, and with anything
 * shaped like a credential hidden: a proxy's or a broken service's page might hold one.
 */
function shortBody(text: string): string {
  const trimmed = text.trim()
  if (!trimmed) return ' (empty body)'
  return trimmed.length <= 120
    ? ` (body: ${cleanText(trimmed, 120)})`
    : ` (${Buffer.byteLength(text)} bytes, not shown)`
}
