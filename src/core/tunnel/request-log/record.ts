/**
 * One request through the tunnel, as the tunnel process's HTTP layer saw it: what the request
 * log (HAR, summary) is written from. The HTTP layer makes these; it never writes a file itself.
 */
export type RequestOutcome =
  | 'forwarded'
  | 'refused'
  // The gate let a browser in: its navigation got a redirect without the secret, and a cookie.
  | 'admitted'
  | 'unreachable'
  | 'not-http'
  | 'proof'

export interface RequestRecord {
  startedAt: number // ms since epoch
  entry: string // the expose entry name
  /**
   * The channel's originator as the tunnel server reported it (originAddr:originPort): the public
   * client without an edge proxy in front, the edge's own address behind one.
   */
  client?: string
  /** The public client's address as an edge proxy reported it in a header (edge-client.ts). */
  edgeReportedClient?: string
  connection?: number // the forwarded connection it came on, unique in the tunnel process's run
  method: string // '' for not-http
  target: string // request target as sent (path + query), '' for not-http
  httpVersion: string // 'HTTP/1.1'
  requestHeaders: [string, string][]
  status?: number // the app's (or the tunnel's own) status; undefined when none
  responseHeaders: [string, string][]
  durationMs: number
  bytesIn: number // bytes from the client (request line+headers+body)
  bytesOut: number // bytes to the client
  outcome: RequestOutcome
  requestBody?: Buffer // only when log-bodies > 0, already cut to that size
  responseBody?: Buffer
  bodyTruncated?: { request: boolean; response: boolean }
  /**
   * The gate or the proof answered (or closed) this request itself, by its decision: not the
   * app's answer, so the HAR keeps it apart from the entries a replaying consumer serves. A 502
   * for an app that is down is not one: it is what the client got in place of the app's answer.
   */
  tunnelAnswered?: boolean
}
