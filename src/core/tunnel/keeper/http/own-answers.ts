/**
 * Answers the tunnel process writes itself, instead of the app: the 502 page when the app does
 * not accept the connection, 400 or 431 for bytes that do not frame as HTTP/1.1, and whatever the
 * gate or the proof answers. Each closes the connection after it.
 */
import { printable } from '../../../text/printable.js'
import type { ExposeEntry } from '../../protocol.js'
import type { LocalAnswer } from './hooks.js'

const REASONS: Record<number, string> = {
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  431: 'Request Header Fields Too Large',
  502: 'Bad Gateway'
}

const HTML_ESCAPES: Record<string, string> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  '"': '&quot;',
  "'": '&#39;'
}

/** Text from the configuration, safe inside HTML: printable, and no markup. */
export function htmlText(value: string): string {
  return printable(value).replace(/[<>&"']/g, character => HTML_ESCAPES[character])
}

/** An answer as it goes on the wire, and its parts as the request log records them. */
export interface SentAnswer {
  bytes: Buffer
  /** Every field sent, the added ones included, in order. */
  headers: [string, string][]
  body: Buffer
}

/** The bytes of an answer: status line, fields, Content-Length, Connection: close, body. */
export function serializeAnswer(answer: LocalAnswer): Buffer {
  return sentAnswer(answer).bytes
}

/** The answer as sent: Content-Type (when absent), Content-Length and Connection: close added. */
export function sentAnswer(answer: LocalAnswer): SentAnswer {
  const body =
    typeof answer.body === 'string' ? Buffer.from(answer.body) : (answer.body ?? Buffer.alloc(0))
  const headers = (answer.headers ?? []).filter(
    ([name]) => !['content-length', 'connection', 'transfer-encoding'].includes(name.toLowerCase())
  )
  if (!headers.some(([name]) => name.toLowerCase() === 'content-type')) {
    headers.push(['Content-Type', 'text/plain; charset=utf-8'])
  }
  headers.push(['Content-Length', String(body.length)], ['Connection', 'close'])
  // A value with a line break would end the head early: such a field is left out.
  const sent = headers.filter(([name, value]) => !/[\r\n]/.test(name + value))
  const lines = sent.map(([name, value]) => `${name}: ${value}\r\n`)
  const status = `HTTP/1.1 ${answer.status} ${REASONS[answer.status] ?? 'Status'}\r\n`
  const bytes = Buffer.concat([Buffer.from(`${status}${lines.join('')}\r\n`, 'latin1'), body])
  return { bytes, headers: sent, body }
}

/** The page a client gets when the entry's app does not accept the connection. */
export function unreachableAnswer(entry: ExposeEntry, code: string): LocalAnswer {
  const name = htmlText(entry.name)
  const address = htmlText(`${entry.host}:${entry.port}`)
  const body =
    '<!doctype html>\n<html><head><meta charset="utf-8"><title>502 Bad Gateway</title></head>\n' +
    `<body><h1>502 Bad Gateway</h1>\n<p>The tunnel reached this runner, but the app of entry ` +
    `<code>${name}</code> at <code>${address}</code> did not accept the connection ` +
    `(${htmlText(code)}). Is it started, and listening on that address?</p></body></html>\n`
  return { status: 502, headers: [['Content-Type', 'text/html; charset=utf-8']], body }
}

/** The answer to bytes that do not frame as HTTP/1.1 (see rules.ts for why it is strict). */
export function malformedAnswer(status: number, reason: string): LocalAnswer {
  return { status, body: `The tunnel could not read this request: ${reason}.\n` }
}
