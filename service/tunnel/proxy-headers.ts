/**
 * What the front keeps of a message's header fields when it passes it on, as an HTTP proxy must:
 * the hop-by-hop fields (RFC 9110, 7.6.1) and any field `Connection` names are its own to drop.
 * Names keep the case they came with, and repeated fields stay repeated.
 */
import type { IncomingMessage } from 'node:http'

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade'
])

/**
 * `rawHeaders` (name, value, name, value, …) without the hop-by-hop fields. A request's chunked
 * body is chunked again on the next hop (`rechunk`), since its length is still unknown; an
 * answer's framing is left to the server, which knows what its client can read.
 */
export function forwardedHeaders(rawHeaders: readonly string[], rechunk = false): string[] {
  const named = new Set<string>()
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i].toLowerCase() !== 'connection') continue
    for (const token of rawHeaders[i + 1].split(',')) named.add(token.trim().toLowerCase())
  }
  const kept: string[] = []
  let chunked = false
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase()
    if (name === 'transfer-encoding') chunked = true
    if (HOP_BY_HOP.has(name) || named.has(name)) continue
    kept.push(rawHeaders[i], rawHeaders[i + 1])
  }
  if (chunked && rechunk) kept.push('Transfer-Encoding', 'chunked')
  return kept
}

/** Whether a request has a body to pass on: HTTP/1.1 frames one only by these two fields. */
export const hasBody = (request: IncomingMessage): boolean =>
  request.headers['content-length'] !== undefined ||
  request.headers['transfer-encoding'] !== undefined

/** The head of an upgrade request as it goes through: every field, since the upgrade needs them. */
export function requestHead(request: IncomingMessage): string {
  const lines = [`${request.method ?? 'GET'} ${request.url ?? '/'} HTTP/${request.httpVersion}`]
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    lines.push(`${request.rawHeaders[i]}: ${request.rawHeaders[i + 1]}`)
  }
  return `${lines.join('\r\n')}\r\n\r\n`
}
