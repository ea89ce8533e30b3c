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
  client?: string // public client address as the server reported it (originAddr:originPort)
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
}
