/**
 * One HAR 1.2 entry (http://www.softwareishard.com/blog/har-12-spec/) from a redacted request
 * record, in the shape Chrome's and Firefox's DevTools import. What HAR has no field for goes in
 * fields prefixed with `_`, as the spec allows: the expose entry, the client's addresses, what the
 * tunnel did.
 */
import { STATUS_CODES } from 'node:http'
import type { RequestOutcome, RequestRecord } from './record.js'

export interface HarHeader {
  name: string
  value: string
}

export interface HarContent {
  size: number
  mimeType: string
  text?: string
  encoding?: 'base64'
  comment?: string
}

export interface HarEntry {
  startedDateTime: string
  time: number
  request: {
    method: string
    url: string
    httpVersion: string
    cookies: []
    headers: HarHeader[]
    queryString: HarHeader[]
    postData?: {
      mimeType: string
      text: string
      encoding?: 'base64'
      comment?: string
      /** Set when the text is only the start of the body: a replay must not send it as whole. */
      _truncated?: boolean
    }
    headersSize: number
    bodySize: number
  }
  response: {
    status: number
    statusText: string
    httpVersion: string
    cookies: []
    headers: HarHeader[]
    content: HarContent
    redirectURL: string
    headersSize: number
    bodySize: number
    _transferSize: number
  }
  cache: Record<string, never>
  timings: { send: number; wait: number; receive: number }
  /** HAR's own field: the connection it came on (a challenge's retry may share it). */
  connection?: string
  _entry: string
  /** The channel's originator, as the tunnel server reported it (behind an edge: the edge). */
  _client?: string
  /** The public client as the edge proxy reported it (X-Real-IP, X-Forwarded-For): for people. */
  _edgeReportedClient?: string
  _tunnel: RequestOutcome
  _bytesIn: number
  _bytesOut: number
}

/** The public base URL of an expose entry (`https://web-x.example.net`), when known. */
export type PublicBaseUrl = (entry: string) => string | undefined

/** A URL that no host answers, for an entry whose public URL is not known. */
const UNKNOWN_BASE = 'http://unknown.invalid'

const BODY_DROPPED = 'body dropped to keep the file under its size cap'

export function harEntryOf(record: RequestRecord, publicBaseUrl: PublicBaseUrl): HarEntry {
  const duration = nonNegative(record.durationMs)
  const requestHeaders = record.requestHeaders.map(([name, value]) => ({ name, value }))
  const responseHeaders = record.responseHeaders.map(([name, value]) => ({ name, value }))
  const cut = record.bodyTruncated ?? { request: false, response: false }
  const entry: HarEntry = {
    startedDateTime: new Date(nonNegative(record.startedAt)).toISOString(),
    time: duration,
    request: {
      method: record.method,
      url: publicUrl(record, publicBaseUrl),
      httpVersion: record.httpVersion,
      cookies: [],
      headers: requestHeaders,
      queryString: queryStringOf(record.target),
      headersSize: -1,
      bodySize: bodySizeOf(record.requestBody, cut.request, requestHeaders)
    },
    response: {
      status: record.status ?? 0,
      statusText: record.status === undefined ? '' : (STATUS_CODES[record.status] ?? ''),
      httpVersion: record.status === undefined ? '' : record.httpVersion,
      cookies: [],
      headers: responseHeaders,
      content: { size: record.responseBody?.length ?? 0, mimeType: mimeTypeOf(responseHeaders) },
      redirectURL: headerValue(responseHeaders, 'location') ?? '',
      headersSize: -1,
      bodySize: bodySizeOf(record.responseBody, cut.response, responseHeaders),
      // Chrome's own field for the bytes on the wire, which its Size column shows.
      _transferSize: nonNegative(record.bytesOut)
    },
    cache: {},
    timings: { send: 0, wait: duration, receive: 0 },
    _entry: record.entry,
    _tunnel: record.outcome,
    _bytesIn: nonNegative(record.bytesIn),
    _bytesOut: nonNegative(record.bytesOut)
  }
  if (record.client !== undefined) entry._client = record.client
  if (record.edgeReportedClient !== undefined) entry._edgeReportedClient = record.edgeReportedClient
  if (record.connection !== undefined) entry.connection = String(record.connection)
  if (record.requestBody && record.requestBody.length > 0) {
    entry.request.postData = {
      mimeType: mimeTypeOf(requestHeaders),
      ...bodyText(record.requestBody),
      ...(cut.request ? { comment: cutComment(record.requestBody), _truncated: true } : {})
    }
  }
  if (record.responseBody && record.responseBody.length > 0) {
    Object.assign(entry.response.content, bodyText(record.responseBody))
    if (cut.response) entry.response.content.comment = cutComment(record.responseBody)
  }
  return entry
}

/** True when the entry holds a body, which the size cap may drop before the entry. */
export function holdsBody(entry: HarEntry): boolean {
  return entry.request.postData !== undefined || entry.response.content.text !== undefined
}

/** The entry without its bodies, saying why; the same keys in the same order otherwise. */
export function withoutBodies(entry: HarEntry): HarEntry {
  const { postData, ...request } = entry.request
  const { text: _text, encoding: _encoding, ...content } = entry.response.content
  return {
    ...entry,
    request: postData
      ? {
          ...request,
          postData: {
            mimeType: postData.mimeType,
            text: '',
            comment: BODY_DROPPED,
            _truncated: true
          }
        }
      : request,
    response: {
      ...entry.response,
      content:
        entry.response.content.text !== undefined ? { ...content, comment: BODY_DROPPED } : content
    }
  }
}

/**
 * The body's size on the wire: the recorded body when it is whole, else what Content-Length
 * declared, so a reader (replay) knows a body existed that the file does not hold; -1 unknown.
 */
function bodySizeOf(
  body: Buffer | undefined,
  cut: boolean,
  headers: { name: string; value: string }[]
): number {
  if (body && !cut) return body.length
  const declared = headerValue(headers, 'content-length')
  return declared !== undefined && /^\d{1,15}$/.test(declared.trim()) ? Number(declared.trim()) : -1
}

function publicUrl(record: RequestRecord, publicBaseUrl: PublicBaseUrl): string {
  // An absolute-form target (a proxy request) names its own URL.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(record.target)) return uriSafe(record.target)
  const base = (publicBaseUrl(record.entry) ?? UNKNOWN_BASE).replace(/\/+$/, '')
  const path = record.target.startsWith('/') ? record.target : `/${record.target}`
  return uriSafe(`${base}${path}`)
}

/** A URL with every byte outside printable ASCII (and every blank) percent-encoded. */
function uriSafe(url: string): string {
  return url.replace(/[^\x21-\x7e]/gu, character =>
    [...Buffer.from(character, 'utf8')]
      .map(byte => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
      .join('')
  )
}

function queryStringOf(target: string): HarHeader[] {
  const start = target.indexOf('?')
  if (start < 0) return []
  return target
    .slice(start + 1)
    .split('&')
    .filter(parameter => parameter !== '')
    .map(parameter => {
      const equals = parameter.indexOf('=')
      return equals < 0
        ? { name: decoded(parameter), value: '' }
        : { name: decoded(parameter.slice(0, equals)), value: decoded(parameter.slice(equals + 1)) }
    })
}

function decoded(component: string): string {
  try {
    return decodeURIComponent(component.replace(/\+/g, ' '))
  } catch {
    return component
  }
}

function headerValue(headers: HarHeader[], name: string): string | undefined {
  return headers.find(header => header.name.toLowerCase() === name)?.value
}

function mimeTypeOf(headers: HarHeader[]): string {
  return headerValue(headers, 'content-type') ?? 'x-unknown'
}

/** UTF-8 text stays text; anything else (or text cut inside a character) is base64. */
function bodyText(body: Buffer): { text: string; encoding?: 'base64' } {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(body)
    // eslint-disable-next-line no-control-regex
    if (!/[\x00-\x08\x0e-\x1f\x7f]/.test(text)) return { text }
  } catch {
    // not UTF-8: base64 below
  }
  return { text: body.toString('base64'), encoding: 'base64' }
}

function cutComment(body: Buffer): string {
  return `body cut at ${body.length} bytes (log-bodies)`
}

function nonNegative(value: number): number {
  return Number.isFinite(value) && value > 0 ? value : 0
}
