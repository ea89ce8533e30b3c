/**
 * The gate's cookie on the wire: the `Set-Cookie` a browser gets with the gate's redirect, and the
 * `Cookie` fields read back, from which the gate's own cookie is taken out before the app sees
 * them (the app's own cookies stay, in their order).
 */
import { GATE_COOKIE_NAME, GATE_COOKIE_SECURE_NAME } from '../../protocol.js'

const OUR_NAMES = new Set([GATE_COOKIE_NAME, GATE_COOKIE_SECURE_NAME])

/**
 * Host-only (no Domain): no other host under the same domain, another user's tunnel say, is sent
 * it. HttpOnly: no script on the page reads it. SameSite=Lax: another site's page cannot make the
 * browser send it with a request of its own, except a top-level GET. No Max-Age: it ends with the
 * browser's session, and the next run's secret makes it worthless anyway.
 */
export function gateSetCookie(value: string, secure: boolean): string {
  const name = secure ? GATE_COOKIE_SECURE_NAME : GATE_COOKIE_NAME
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`
}

export interface CookieFields {
  /** The values of the gate's cookies the request holds, under either name. */
  gateValues: string[]
  /** The `Cookie` value the app gets: its own cookies only; undefined when none is left. */
  appCookies: string | undefined
  /** Whether any gate cookie was there to take out (the fields need rewriting). */
  holdsGateCookie: boolean
}

/** The request's `Cookie` fields, read as `name=value` pairs split at `;` (RFC 6265, 5.4). */
export function readCookieFields(headers: [string, string][]): CookieFields {
  const gateValues: string[] = []
  const kept: string[] = []
  for (const [name, value] of headers) {
    if (name.toLowerCase() !== 'cookie') continue
    for (const pair of value.split(';')) {
      const trimmed = pair.trim()
      if (trimmed === '') continue
      const equals = trimmed.indexOf('=')
      const cookieName = equals < 0 ? '' : trimmed.slice(0, equals).trim()
      if (OUR_NAMES.has(cookieName)) gateValues.push(trimmed.slice(equals + 1).trim())
      else kept.push(trimmed)
    }
  }
  return {
    gateValues,
    appCookies: kept.length === 0 ? undefined : kept.join('; '),
    holdsGateCookie: gateValues.length > 0
  }
}
