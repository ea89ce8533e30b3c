/**
 * What HTTP/1.1 says about a head: its start line, its fields, and how its body is delimited.
 * Requests are read strictly: a request this layer frames differently from the app could carry
 * a second request, hidden in its body, past the gate (request smuggling), so anything a server
 * could read two ways is refused with 400 instead (RFC 9112, 6.1 and 6.3).
 */
import { FramingError, type BodyFraming } from './framing.js'

export interface ParsedHead {
  /** The request line or status line. */
  startLine: string
  /** Every field line exactly as sent (latin1), for rewriting a head without touching the rest. */
  lines: string[]
  headers: [string, string][]
}

export interface RequestLine {
  method: string
  target: string
  httpVersion: string
}

/** A method (an HTTP token), one space, a target without spaces or controls, one space, version. */
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) ([\x21-\x7e\x80-\xff]+) (HTTP\/1\.[01])$/
const STATUS_LINE = /^(HTTP\/1\.[01]) ([1-9]\d\d)(?: [^\r\n]*)?$/
const FIELD = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*([^\r\n]*?)[ \t]*$/

/** A head's bytes (CRLF CRLF included) as lines and fields; throws on a malformed field. */
export function parseHead(bytes: Buffer): ParsedHead {
  const text = bytes.toString('latin1', 0, bytes.length - 4)
  const [startLine, ...lines] = text.split('\r\n')
  const headers: [string, string][] = []
  for (const line of lines) {
    // No folded lines, no space before the colon, no stray CR or LF: each reads two ways.
    const field = FIELD.exec(line)
    if (field === null) throw new FramingError(400, 'a header line is malformed')
    headers.push([field[1], field[2]])
  }
  return { startLine, lines, headers }
}

export function parseRequestLine(startLine: string): RequestLine {
  const match = REQUEST_LINE.exec(startLine)
  if (match === null) throw new FramingError(400, 'the request line is malformed')
  return { method: match[1], target: match[2], httpVersion: match[3] }
}

export function parseStatus(startLine: string): number {
  const match = STATUS_LINE.exec(startLine)
  if (match === null) throw new FramingError(502, 'the app answered something other than HTTP/1.x')
  return Number(match[2])
}

/** The values of every field with this name (lower case), in order. */
export function valuesOf(headers: [string, string][], name: string): string[] {
  return headers.filter(([field]) => field.toLowerCase() === name).map(([, value]) => value)
}

/** The comma-separated items of every field with this name, lower case. */
function itemsOf(headers: [string, string][], name: string): string[] {
  return valuesOf(headers, name)
    .flatMap(value => value.split(','))
    .map(item => item.trim().toLowerCase())
    .filter(item => item !== '')
}

/** The one Content-Length every field agrees on, or undefined when there is none. */
function contentLength(headers: [string, string][], status: 400 | 502): number | undefined {
  const values = valuesOf(headers, 'content-length').flatMap(value => value.split(','))
  if (values.length === 0) return undefined
  const lengths = new Set(values.map(value => value.trim()))
  const [length] = lengths
  if (lengths.size !== 1 || !/^\d{1,15}$/.test(length)) {
    throw new FramingError(status, 'the Content-Length is not one whole number')
  }
  return Number(length)
}

export function requestFraming(headers: [string, string][]): BodyFraming {
  const codings = itemsOf(headers, 'transfer-encoding')
  if (valuesOf(headers, 'transfer-encoding').length > 0) {
    if (valuesOf(headers, 'content-length').length > 0) {
      throw new FramingError(400, 'a request has both Transfer-Encoding and Content-Length')
    }
    if (codings[codings.length - 1] !== 'chunked') {
      throw new FramingError(400, 'a request body is not chunked last')
    }
    return { kind: 'chunked' }
  }
  const length = contentLength(headers, 400)
  return length === undefined ? { kind: 'none' } : { kind: 'length', length }
}

/** A request that asks to leave HTTP (WebSocket and any other Upgrade, or CONNECT). */
export function asksToSwitch(method: string, headers: [string, string][]): boolean {
  if (method === 'CONNECT') return true
  return (
    valuesOf(headers, 'upgrade').length > 0 && itemsOf(headers, 'connection').includes('upgrade')
  )
}

/** How an answer's body is delimited, given the request it answers (RFC 9112, 6.3). */
export function responseFraming(
  method: string,
  status: number,
  headers: [string, string][]
): BodyFraming {
  if (status < 200 || status === 204 || status === 304 || method === 'HEAD') return { kind: 'none' }
  if (method === 'CONNECT' && status < 300) return { kind: 'raw' }
  const codings = itemsOf(headers, 'transfer-encoding')
  if (codings.length > 0) {
    return codings[codings.length - 1] === 'chunked' ? { kind: 'chunked' } : { kind: 'until-close' }
  }
  const length = contentLength(headers, 502)
  return length === undefined ? { kind: 'until-close' } : { kind: 'length', length }
}

/**
 * A request head with another target, without some fields and with others added at its end;
 * every other line unchanged.
 */
export function rewriteHead(
  head: ParsedHead,
  line: RequestLine,
  target: string,
  removeHeaders: string[],
  addHeaders: [string, string][] = []
): Buffer {
  // A space or line break in a hook's target would change what the app reads as the request.
  if (!/^[\x21-\x7e\x80-\xff]+$/.test(target)) throw new Error('a rewritten target is malformed')
  const added = addHeaders.map(([name, value]) => `${name}: ${value}`)
  // Likewise a field that does not read as one field.
  if (!added.every(field => FIELD.test(field))) throw new Error('an added header is malformed')
  const removed = new Set(removeHeaders.map(name => name.toLowerCase()))
  const kept = head.lines.filter((_, index) => !removed.has(head.headers[index][0].toLowerCase()))
  const text = [`${line.method} ${target} ${line.httpVersion}`, ...kept, ...added, '', ''].join(
    '\r\n'
  )
  return Buffer.from(text, 'latin1')
}
