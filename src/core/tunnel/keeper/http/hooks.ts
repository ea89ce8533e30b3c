/**
 * What the request log, the gate and the URL proof plug into the tunnel process's HTTP layer.
 * Without hooks a forwarded connection is a raw pipe (forwarded-connection.ts); with them each
 * request is seen, decided and recorded here, one call each, before and after the app.
 */
import type { RequestOutcome, RequestRecord } from '../../request-log/record.js'

/** A request's head as the client sent it, before anything reaches the app. */
export interface RequestHead {
  /** The expose entry the connection came in on. */
  entry: string
  /** The public client's address as the tunnel server reported it, `addr:port`. */
  client?: string
  method: string
  /** As sent: path and query (or an absolute URL, or `*`). */
  target: string
  httpVersion: string
  /** Every field in order, names as sent. */
  headers: [string, string][]
}

/** An answer the tunnel process gives itself; the connection is closed after it. */
export interface LocalAnswer {
  status: number
  /** Content-Length, Connection: close and, when absent, Content-Type are added. */
  headers?: [string, string][]
  body?: string | Buffer
}

/**
 * What to do with one request:
 * - `'forward'`: to the app unchanged;
 * - `{ forward }`: to the app with another target (a secret path prefix stripped, say), without
 *   some fields (the gate's credentials), and with fields added after the others (the `Cookie`
 *   the app gets once the gate's own cookie is taken out); the record holds what the app was sent;
 * - `{ answer, outcome }`: answered by the tunnel process, never sent to the app, recorded with
 *   that outcome (`refused` or `admitted` by the gate, or the `proof` of the URL).
 */
export type RequestDecision =
  | 'forward'
  | { forward: { target?: string; removeHeaders?: string[]; addHeaders?: [string, string][] } }
  | { answer: LocalAnswer; outcome: Extract<RequestOutcome, 'refused' | 'admitted' | 'proof'> }

export interface HttpHooks {
  /** Called once per request, in order, before any of its bytes reach the app. */
  decide?(request: RequestHead): RequestDecision
  /** Called once per request when it is over (answered, refused, unreachable or cut off). */
  record?(record: RequestRecord): void
  /** Bytes of each body kept in its record; 0 or absent: none. */
  captureBodyBytes?: number
  /**
   * Whether a connection whose first bytes are not HTTP/1.x is piped raw to the app (recorded
   * `not-http`). With the gate on this must be false: such bytes could still be a request the
   * app reads, which the gate never saw; they are then closed unanswered and recorded `refused`.
   */
  passNotHttp: boolean
}

/** `addr:port`, IPv6 in brackets, as the server reported the client; undefined without one. */
export function clientAddress(address: string | undefined, port: number | undefined) {
  if (address === undefined || address === '') return undefined
  const host = address.includes(':') ? `[${address}]` : address
  return port === undefined ? host : `${host}:${port}`
}
