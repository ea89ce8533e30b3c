/**
 * A record of the requests the stand-in received, so tests can assert what a client sent.
 * Credentials are redacted before they are stored: tests scan output for leaked secrets, and
 * a log that held them would turn a test failure message into a leak of its own.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { FaultKind } from './faults.js'

export interface RequestLogEntry {
  /** When the request arrived (ISO 8601, from the service's clock). */
  at: string
  method: string
  /** The path with its query, e.g. `/functions/v1/credential-provision`. */
  path: string
  /** Lower-case header names; `x-api-key` and `authorization` redacted. */
  headers: Record<string, string>
  /**
   * The parsed JSON body, the raw text if it was not JSON, or null when there was none. A body
   * above MAX_LOGGED_BODY_BYTES is its first bytes as text, followed by `… (cut: N bytes in all)`.
   */
  body: unknown
  /** The status answered; null while pending, or when the fault was `hang` or `close`. */
  status: number | null
  /** The injected fault that answered this request, if any. */
  fault: FaultKind | null
}

const SECRET_HEADERS = new Set(['x-api-key', 'authorization'])

/** `sk_…1a2b`, `Bearer …9xyz`: enough to tell values apart, not enough to use them. */
export function redactSecret(value: string): string {
  const bearer = /^(Bearer\s+)(.*)$/i.exec(value)
  if (bearer !== null) return `${bearer[1]}…${bearer[2].slice(-4)}`
  const prefix = value.startsWith('sk_') ? 'sk_' : ''
  return `${prefix}…${value.slice(-4)}`
}

export function redactHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const redacted: Record<string, string> = {}
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue
    const value = Array.isArray(raw) ? raw.join(', ') : raw
    redacted[name] = SECRET_HEADERS.has(name) ? redactSecret(value) : value
  }
  return redacted
}

/**
 * How much the log keeps. A test or a long demo run can send thousands of requests, up to 1 MB
 * each; kept whole, they grew the service by hundreds of MB. No endpoint's real body comes near
 * 4 KiB, so what is cut is only what a client sent by mistake or to probe the limit.
 */
export const MAX_LOGGED_REQUESTS = 1000
export const MAX_LOGGED_BODY_BYTES = 4096

/** The first `limit` bytes of `text`, backed off to a character boundary. */
function utf8Prefix(text: string, limit: number): string {
  const bytes = Buffer.from(text, 'utf8')
  let end = limit
  // 0b10xxxxxx is a continuation byte: the cut would fall inside a character.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end -= 1
  return bytes.subarray(0, end).toString('utf8')
}

/** The parsed JSON body, the raw text if it is not JSON, null if empty; a long body cut, and said so. */
export function loggedBody(raw: string): unknown {
  if (raw === '') return null
  const size = Buffer.byteLength(raw)
  if (size > MAX_LOGGED_BODY_BYTES) {
    return `${utf8Prefix(raw, MAX_LOGGED_BODY_BYTES)}… (cut: ${size} bytes in all)`
  }
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

/** The last MAX_LOGGED_REQUESTS entries, oldest first. */
export class RequestLog {
  private entries: RequestLogEntry[] = []

  add(entry: RequestLogEntry): void {
    this.entries.push(entry)
    if (this.entries.length > MAX_LOGGED_REQUESTS) this.entries.shift()
  }

  /** Copies, so a caller cannot change what the log holds. */
  snapshot(): RequestLogEntry[] {
    return this.entries.map(entry => structuredClone(entry))
  }

  clear(): void {
    this.entries = []
  }
}
