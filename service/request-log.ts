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
  /** The parsed JSON body, the raw text if it was not JSON, or null when there was none. */
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

export function loggedBody(raw: string): unknown {
  if (raw === '') return null
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}
