/**
 * One recorded request sent again, as near to the bytes the app first got as HTTP allows:
 * node:http with the headers as a list (order, case and repeats kept, no Host or
 * Transfer-Encoding added) and the target as recorded (fetch would normalise it and refuse Host).
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { isIP } from 'node:net'

export interface OutgoingRequest {
  method: string
  /** Path and query, --to's path already in front. */
  target: string
  /** Already filtered; Host and Content-Length included. */
  headers: [string, string][]
  body: Buffer
}

export type SendResult =
  | { type: 'answered'; status: number }
  | { type: 'refused' }
  | { type: 'failed'; cause: string }
  /** Node would not send it: a method, target or header no HTTP/1.1 request can carry. */
  | { type: 'unsendable'; cause: string }

// The answer's body is read and dropped; a streamed answer (server-sent events) would hold the
// replay for the whole timeout, and its status is already known.
const BODY_GRACE_MS = 2000

export function sendRequest(
  to: URL,
  outgoing: OutgoingRequest,
  timeoutMs: number
): Promise<SendResult> {
  const send = to.protocol === 'https:' ? httpsRequest : httpRequest
  const hostname = to.hostname.replace(/^\[|\]$/g, '')
  let request: ClientRequest
  try {
    request = send({
      protocol: to.protocol,
      hostname,
      port: to.port === '' ? undefined : Number(to.port),
      method: outgoing.method,
      path: outgoing.target,
      headers: outgoing.headers.flat(),
      setHost: false,
      // TLS names --to's host, never the recorded Host (the public tunnel's name).
      ...(to.protocol === 'https:' && isIP(hostname) === 0 && { servername: hostname }),
      // A connection per request: one the app closed mid-way cannot spoil the next request.
      agent: false
    })
  } catch (error) {
    return Promise.resolve({ type: 'unsendable', cause: codeOf(error) })
  }
  return new Promise(resolve => {
    let settled = false
    const finish = (result: SendResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      request.destroy()
      resolve(result)
    }
    const timer = setTimeout(
      () => finish({ type: 'failed', cause: `no answer within ${timeoutMs / 1000} s` }),
      timeoutMs
    )
    request.on('response', (response: IncomingMessage) => {
      const result: SendResult = { type: 'answered', status: response.statusCode ?? 0 }
      clearTimeout(timer)
      const grace = setTimeout(() => finish(result), Math.min(BODY_GRACE_MS, timeoutMs))
      response.on('end', () => (clearTimeout(grace), finish(result)))
      response.on('error', () => (clearTimeout(grace), finish(result)))
      response.resume()
    })
    request.on('error', error => {
      const code = codeOf(error)
      finish(code === 'ECONNREFUSED' ? { type: 'refused' } : { type: 'failed', cause: code })
    })
    request.end(outgoing.body)
  })
}

/** A Node error code (ECONNRESET, ERR_INVALID_CHAR): never the message, which may quote the HAR. */
function codeOf(error: unknown): string {
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? code : 'an error'
}
