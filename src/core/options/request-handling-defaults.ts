/**
 * The defaults of what the tunnel does with requests (`log-requests`, `log-bodies`,
 * `log-headers`, `protect`, `prove-url`), as values. Written once, here: the table states them
 * as text (tunnel-options.ts), main's settings fill empty options with them, and the keeper fills
 * a field its configuration lacks with them (tunnel/protocol.ts). A file apart from the table,
 * importing nothing, since the keeper's bundle holds it and none of the options' descriptions.
 */
export const REQUEST_HANDLING_DEFAULTS: {
  readonly logRequests: boolean
  readonly logBodies: number
  readonly logHeaders: 'redacted' | 'unredacted'
  readonly protect: boolean
  readonly proveUrl: boolean
} = {
  logRequests: true,
  logBodies: 0,
  logHeaders: 'redacted',
  protect: false,
  proveUrl: true
}
