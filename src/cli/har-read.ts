/**
 * The parts of a HAR 1.2 file that `replay` needs, read from any producer: this tool's request
 * log, Chrome's or Firefox's DevTools export. The whole file is checked before any request is
 * sent, so a bad entry sends nothing. Everything read here is outside text: callers pass it
 * through printable() before it reaches a line.
 */

/** What the tunnel did with a request it recorded; anything but `forwarded` never reached the app. */
const TUNNEL_OWN_OUTCOMES = new Set(['refused', 'admitted', 'unreachable', 'not-http', 'proof'])

export interface HarBody {
  bytes: Buffer
  /** Why the recorded bytes are not the whole body; undefined when they are. */
  incomplete?: string
}

export interface HarRequest {
  /** 1-based position in the file, as `--index` counts. */
  index: number
  method: string
  /** Path and query as the client sent them, never normalised (`/a/../b` stays). */
  target: string
  headers: [string, string][]
  body?: HarBody
  /** The recorded status; 0 or undefined when none was recorded. */
  status?: number
  /** The tunnel's own outcome when the request never reached the app. */
  tunnelOutcome?: string
}

/** A file that is not a HAR this tool can read: a usage error, with the cause. */
export class HarError extends Error {}

export function readHar(text: string): HarRequest[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new HarError('is not JSON')
  }
  const entries = field(field(parsed, 'log'), 'entries')
  if (!Array.isArray(entries)) throw new HarError('has no log.entries list: it is not a HAR file')
  return entries.map((entry, position) => readEntry(entry, position + 1))
}

function readEntry(entry: unknown, index: number): HarRequest {
  const request = field(entry, 'request')
  const method = field(request, 'method')
  const url = field(request, 'url')
  if (typeof method !== 'string' || typeof url !== 'string') {
    throw new HarError(`entry ${index} has no request method or url`)
  }
  const status = field(field(entry, 'response'), 'status')
  const outcome = tunnelOutcome(field(entry, '_tunnel'))
  return {
    index,
    method,
    target: targetOf(url),
    headers: headersOf(field(request, 'headers'), index),
    ...bodyOf(request, entry, index),
    ...(typeof status === 'number' && Number.isInteger(status) && { status }),
    ...(outcome !== undefined && TUNNEL_OWN_OUTCOMES.has(outcome) && { tunnelOutcome: outcome })
  }
}

/**
 * Path and query from the recorded URL, by hand: `new URL` would resolve dot segments and
 * re-encode characters, and the app must get the target the client sent. HAR's URL is absolute;
 * a bare path is taken as it is.
 */
function targetOf(url: string): string {
  const withoutOrigin = url.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/, '')
  const target = withoutOrigin.split('#')[0]
  if (target === '') return '/'
  return target.startsWith('/') || target === '*' ? target : `/${target}`
}

function headersOf(headers: unknown, index: number): [string, string][] {
  if (headers === undefined) return []
  if (!Array.isArray(headers))
    throw new HarError(`entry ${index} has request headers that are not a list`)
  return headers.map(header => {
    const name = field(header, 'name')
    const value = field(header, 'value')
    if (typeof name !== 'string' || typeof value !== 'string') {
      throw new HarError(`entry ${index} has a request header without a name or value`)
    }
    return [name, value]
  })
}

/**
 * The recorded body, and whether it is whole: this tool marks a cut body with `_truncated`, and
 * any producer's `bodySize` larger than the bytes it kept tells the same. A body the request had
 * (bodySize above 0) but the file did not keep is incomplete too.
 */
function bodyOf(request: unknown, entry: unknown, index: number): { body?: HarBody } {
  const postData = field(request, 'postData')
  const bodySize = field(request, 'bodySize')
  const declared = typeof bodySize === 'number' && bodySize > 0 ? bodySize : undefined
  const text = field(postData, 'text')
  if (typeof text !== 'string') {
    // A chunked body declares no size: its header alone says there was one.
    // A size of 0 says there was none; an unknown size (-1) with a chunked body says there was one.
    const sizeUnknown = typeof bodySize !== 'number' || bodySize < 0
    if (declared === undefined && !(sizeUnknown && declaresChunkedBody(request))) return {}
    return {
      body: {
        bytes: Buffer.alloc(0),
        incomplete: `its ${declared === undefined ? 'chunked' : `${declared}-byte`} body was not recorded (record with log-bodies)`
      }
    }
  }
  const encoding = field(postData, 'encoding')
  if (encoding !== undefined && encoding !== 'base64') {
    throw new HarError(`entry ${index} has a body in an encoding other than base64`)
  }
  const bytes = encoding === 'base64' ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8')
  const marked =
    field(postData, '_truncated') === true ||
    field(request, '_truncated') === true ||
    field(field(field(entry, '_tunnel'), 'bodyTruncated'), 'request') === true
  if (marked || (declared !== undefined && declared > bytes.length)) {
    const of = declared !== undefined ? ` of ${declared}` : ''
    return {
      body: {
        bytes,
        incomplete: `its body was cut at ${bytes.length}${of} bytes in the HAR (record with a larger log-bodies)`
      }
    }
  }
  return { body: { bytes } }
}

function declaresChunkedBody(request: unknown): boolean {
  const headers = field(request, 'headers')
  return (
    Array.isArray(headers) &&
    headers.some(
      header =>
        String(field(header, 'name')).toLowerCase() === 'transfer-encoding' &&
        /chunked/i.test(String(field(header, 'value')))
    )
  )
}

/** `_tunnel` as an outcome word, or an object holding one. */
function tunnelOutcome(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  const outcome = field(value, 'outcome')
  return typeof outcome === 'string' ? outcome : undefined
}

function field(value: unknown, name: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  return Object.prototype.hasOwnProperty.call(value, name)
    ? (value as Record<string, unknown>)[name]
    : undefined
}
