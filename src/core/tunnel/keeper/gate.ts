/**
 * The gate (`protect`): a per-run secret in front of every entry. A request passes when it holds
 * the secret in any of three forms, each made for one kind of client, and the form is taken off
 * before the app sees the request, so the app sees it as if there were no gate:
 * 1. `Authorization: Basic base64(user:SECRET)`, any user (browsers, Playwright, Selenium URLs);
 * 2. `X-Tunnel-Gate: SECRET` (API tests; leaves the app's own Authorization alone);
 * 3. a target that starts with `/_tunnel-gate/SECRET` (webhook senders that take only a URL).
 * Anything else gets 401 from the tunnel process and never reaches the app.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import { GATE_HEADER, GATE_PATH_PREFIX } from '../protocol.js'
import type { RequestDecision, RequestHead } from './http/hooks.js'

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

/**
 * The gate's decision for one request. Every form that holds the secret is removed (a client may
 * send two); the comparison takes the same time whatever the guess, since both sides are hashed
 * to equal lengths first.
 */
export function makeGate(secret: string | undefined): (request: RequestHead) => RequestDecision {
  // Gate on without a secret (main failed to send one): nothing passes, rather than everything.
  const expected = secret === undefined || secret === '' ? undefined : digest(secret)
  const matches = (candidate: string): boolean =>
    expected !== undefined && timingSafeEqual(digest(candidate), expected)
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
    if (!gateHeader && !basic && target === undefined) return refusal
    if (removeHeaders.length === 0 && target === undefined) return 'forward'
    return {
      forward: {
        ...(target !== undefined && { target }),
        ...(removeHeaders.length > 0 && { removeHeaders })
      }
    }
  }
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
