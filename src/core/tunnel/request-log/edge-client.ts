/**
 * The public client's address as an edge proxy in front of the tunnel server reports it. Behind
 * an edge (Caddy, an Ingress) the channel's originator is the proxy, so the log keeps this one
 * beside it, for people to read. It is only ever shown: without an edge in front, a client writes
 * these fields itself, so nothing (the gate, the proof, the challenge count) decides on it.
 *
 * `X-Real-IP` when the edge sets it; else the last hop of `X-Forwarded-For`, the one the edge
 * nearest to the tunnel server appended. A value to the left of it was written by someone further
 * out, the client included, and is never taken, even when the last hop is not an address.
 */
import { isIP } from 'node:net'

export function edgeReportedClient(headers: readonly [string, string][]): string | undefined {
  const realIp = fieldValues(headers, 'x-real-ip')
  if (realIp.length > 0) return ipAddress(realIp.at(-1)!)
  const forwardedFor = fieldValues(headers, 'x-forwarded-for')
  if (forwardedFor.length === 0) return undefined
  // Several fields are one list, in order (RFC 9110, 5.3).
  return ipAddress(forwardedFor.join(',').split(',').at(-1)!)
}

function fieldValues(headers: readonly [string, string][], name: string): string[] {
  return headers.filter(([field]) => field.toLowerCase() === name).map(([, value]) => value)
}

/**
 * The value when it is one IPv4 or IPv6 address and nothing else; undefined otherwise. A zone
 * (`fe80::1%eth0`) is refused: its text after `%` is free, and no public client has one.
 */
function ipAddress(value: string): string | undefined {
  const address = value.trim()
  return isIP(address) !== 0 && !address.includes('%') ? address : undefined
}
