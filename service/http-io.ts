/** Reading request bodies and writing answers: the only socket-level code besides server.ts. */
import type { IncomingMessage, ServerResponse } from 'node:http'

/** Bodies above this are refused with 413; no endpoint needs more than a few hundred bytes. */
export const MAX_BODY_BYTES = 1024 * 1024

export interface ReadBody {
  text: string
  tooLarge: boolean
}

/**
 * Reads the whole body, keeping at most `limit` bytes. An oversized body is still drained
 * rather than cut off, so the client reads a clean 413 instead of a reset connection.
 */
export function readBody(request: IncomingMessage, limit = MAX_BODY_BYTES): Promise<ReadBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let tooLarge = false
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) tooLarge = true
      if (!tooLarge) chunks.push(chunk)
    })
    const finish = (): void =>
      resolve({ text: tooLarge ? '' : Buffer.concat(chunks).toString('utf8'), tooLarge })
    request.on('end', finish)
    // A client that gives up mid-body never sends 'end'; settle anyway so nothing waits forever.
    request.on('close', finish)
    request.on('error', reject)
  })
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {}
): void {
  const text = JSON.stringify(body)
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers
  })
  response.end(text)
}

export function sendText(
  response: ServerResponse,
  status: number,
  contentType: string,
  text: string
): void {
  response.writeHead(status, {
    'content-type': contentType,
    'content-length': String(Buffer.byteLength(text))
  })
  response.end(text)
}

/** An answer with no body at all; a 204 must not even carry a Content-Length. */
export function sendEmpty(response: ServerResponse, status: number): void {
  response.writeHead(status, status === 204 ? {} : { 'content-length': '0' })
  response.end()
}
