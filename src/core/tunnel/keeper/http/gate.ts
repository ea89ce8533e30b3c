/**
 * The gate (`protect`): a per-run secret in front of every entry. A request passes when it holds
 * the secret in any of three forms, each made for one kind of client, or the cookie a browser gets
 * for it; each is taken off before the app sees the request, so the app sees it as if there were
 * no gate:
 * 1. `Authorization: Basic base64(user:SECRET)`, any user (curl -u, Playwright's httpCredentials,
 *    a browser's `user:SECRET@` URL);
 * 2. `X-Tunnel-Gate: SECRET` (API tests; leaves the app's own Authorization alone);
 * 3. a target that starts with `/_tunnel-gate/SECRET` (webhook senders that take only a URL);
 * 4. the gate's cookie (gate-cookie.ts), which a browser's navigation that carried the secret in
 *    form 1 or 3 gets, with a way to the same page at a URL without the secret (gate-admission.ts).
 *    A page then calls its own API with fetch() from a URL that holds no credentials, which the
 *    Fetch standard requires.
 * Anything else gets 401 from the tunnel process and never reaches the app.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { GATE_HEADER, GATE_PATH_PREFIX, gateCookieValue } from '../../protocol.js'
import { pageAdmission, pathOnly, redirectAdmission } from './gate-admission.js'
import { gateSetCookie, readCookieFields } from './gate-cookie.js'
import type { RequestDecision, RequestHead } from './hooks.js'
import { isNavigation } from './navigation.js'

export const GATE_REALM = 'tunnel-credentials gate'

// Says how to get in, never with what: the secret is only in the step's outputs.
const REFUSAL_TEXT =
  'This tunnel is protected by a per-run secret (the protect-secret output of the step that ' +
  'opened it). Send it in one of three ways: Basic authentication with any user name and the ' +
  `secret as the password; a header "${GATE_HEADER}: <secret>"; or a path that starts with ` +
  `"${GATE_PATH_PREFIX}<secret>/".\n`

const refusal: RequestDecision = {
  answer: {
    status: 401,
    headers: [
      ['WWW-Authenticate', `Basic realm="${GATE_REALM}", charset="UTF-8"`],
      ['Content-Type', 'text/plain; charset=utf-8'],
      ['Cache-Control', 'no-store']
    ],
    body: REFUSAL_TEXT
  },
  outcome: 'refused'
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest()

/** Whether the cookie the gate sets for `entry` is `Secure`: its public URL is https. */
export type SecureCookie = (entry: string) => boolean

/**
 * The gate's decision for one request. Every form that holds the secret is removed (a client may
 * send two); each comparison takes the same time whatever the guess, since both sides are hashed
 * to equal lengths first.
 */
export function makeGate(
  secret: string | undefined,
  secureCookie: SecureCookie = () => true
): (request: RequestHead) => RequestDecision {
  // Gate on without a secret (main failed to send one): nothing passes, rather than everything.
  const known = secret !== undefined && secret !== ''
  const expected = known ? digest(secret) : undefined
  const cookie = known ? gateCookieValue(secret) : ''
  const expectedCookie = known ? digest(cookie) : undefined
  const matches = (candidate: string): boolean =>
    expected !== undefined && timingSafeEqual(digest(candidate), expected)
  const matchesCookie = (candidate: string): boolean =>
    expectedCookie !== undefined && timingSafeEqual(digest(candidate), expectedCookie)
  return request => {
    const removeHeaders: string[] = []
    const gateHeader = request.headers.some(
      ([name, value]) => name.toLowerCase() === 'x-tunnel-gate' && matches(value.trim())
    )
    if (gateHeader) removeHeaders.push(GATE_HEADER)
    const basic = request.headers.some(
      ([name, value]) =>
        name.toLowerCase() === 'authorization' && matchesBasicPassword(value, matches)
    )
    if (basic) removeHeaders.push('Authorization')
    const target = withoutGatePath(request.target, matches)
    const cookies = readCookieFields(request.headers)
    const hasCookie = cookies.gateValues.some(matchesCookie)
    if (!gateHeader && !basic && target === undefined && !hasCookie) return refusal
    const admission = admissionFor(request, target, basic && !hasCookie)
    if (admission !== undefined)
      return admission(gateSetCookie(cookie, secureCookie(request.entry)))
    if (cookies.holdsGateCookie) removeHeaders.push('Cookie')
    const addHeaders: [string, string][] =
      cookies.holdsGateCookie && cookies.appCookies !== undefined
        ? [['Cookie', cookies.appCookies]]
        : []
    // Whatever let the request in is in the target or a field, so there is always a change.
    return {
      forward: {
        ...(target !== undefined && { target }),
        ...(removeHeaders.length > 0 && { removeHeaders }),
        ...(addHeaders.length > 0 && { addHeaders })
      }
    }
  }
}

/**
 * How a navigation that carried the secret is let in (gate-admission.ts), or undefined when it is
 * forwarded as it is. The path form always: it leaves the URL at once. Basic only for a browser
 * without the cookie yet: one that keeps sending Basic once it has it is let through, never sent
 * round again, which would loop. The header form never: it comes with every request anyway.
 */
function admissionFor(
  request: RequestHead,
  strippedTarget: string | undefined,
  basicWithoutCookie: boolean
): ((setCookie: string) => RequestDecision) | undefined {
  if (!isNavigation(request.method, request.headers)) return undefined
  if (strippedTarget !== undefined) {
    const location = pathOnly(strippedTarget)
    return location === undefined ? undefined : setCookie => redirectAdmission(location, setCookie)
  }
  return basicWithoutCookie ? pageAdmission : undefined
}

/** Whether `value` is a Basic credential whose password (after the first `:`) is the secret. */
function matchesBasicPassword(value: string, matches: (candidate: string) => boolean): boolean {
  const found = /^\s*basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(value)
  if (found === null) return false
  const decoded = Buffer.from(found[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon >= 0 && matches(decoded.slice(colon + 1))
}

/**
 * The target without its `/_tunnel-gate/SECRET` prefix (`/` when nothing follows), or undefined
 * when it does not start with the prefix and the right secret.
 */
function withoutGatePath(
  target: string,
  matches: (candidate: string) => boolean
): string | undefined {
  if (!target.startsWith(GATE_PATH_PREFIX)) return undefined
  const rest = target.slice(GATE_PATH_PREFIX.length)
  const end = rest.search(/[/?#]/)
  const candidate = end < 0 ? rest : rest.slice(0, end)
  if (!matches(candidate)) return undefined
  const after = end < 0 ? '' : rest.slice(end)
  return after.startsWith('/') ? after : `/${after}`
}
