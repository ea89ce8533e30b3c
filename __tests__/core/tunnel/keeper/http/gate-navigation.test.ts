/**
 * The gate's decision for a browser: a navigation that carries the secret gets the gate's cookie
 * (derived from the secret, never the secret) and the same page at a URL without the secret; the
 * cookie then lets every request of the page in and never reaches the app. Clients that are not
 * navigating get no redirect and no cookie.
 */
import { makeGate } from '../../../../../src/core/tunnel/keeper/http/gate.js'
import type {
  RequestDecision,
  RequestHead
} from '../../../../../src/core/tunnel/keeper/http/hooks.js'
import { gateCookieValue } from '../../../../../src/core/tunnel/protocol.js'

const SECRET = 'Zx9_Qw-Ab3kLmPq7'
const COOKIE = gateCookieValue(SECRET)
const PREFIX = `/_tunnel-gate/${SECRET}`
const NAVIGATE: [string, string] = ['Sec-Fetch-Mode', 'navigate']
const basic = `Basic ${Buffer.from(`u:${SECRET}`).toString('base64')}`

function request(method: string, target: string, headers: [string, string][]): RequestHead {
  return { entry: 'web', method, target, httpVersion: 'HTTP/1.1', headers }
}

const gate = makeGate(SECRET, entry => entry === 'web')

/** What the client gets: the gate's own answer (status and headers), or what the app is sent. */
function seen(decision: RequestDecision): unknown {
  if (decision === 'forward') return 'forward'
  if ('answer' in decision) {
    return {
      status: decision.answer.status,
      headers: decision.answer.headers,
      outcome: decision.outcome
    }
  }
  return decision.forward
}

const headerOf = (decision: RequestDecision, name: string): string | undefined => {
  if (decision === 'forward' || !('answer' in decision)) return undefined
  return decision.answer.headers?.find(([field]) => field.toLowerCase() === name)?.[1]
}

describe('the gate, for a browser', () => {
  it('answers a navigation with the path form by a 303 to the path without it, and the cookie', () => {
    const decision = gate(request('GET', `${PREFIX}/app/page?x=1`, [NAVIGATE]))
    expect(seen(decision)).toMatchObject({ status: 303, outcome: 'admitted' })
    expect(headerOf(decision, 'location')).toBe('/app/page?x=1')
    expect(headerOf(decision, 'set-cookie')).toBe(
      `__Host-tunnel-credentials-gate=${COOKIE}; Path=/; HttpOnly; SameSite=Lax; Secure`
    )
    expect(COOKIE).not.toContain(SECRET)
  })

  it('sets the cookie without Secure, under its plain name, when the public URL is http', () => {
    const decision = makeGate(SECRET, () => false)(request('GET', PREFIX, [NAVIGATE]))
    expect(headerOf(decision, 'location')).toBe('/')
    expect(headerOf(decision, 'set-cookie')).toBe(
      `tunnel-credentials-gate=${COOKIE}; Path=/; HttpOnly; SameSite=Lax`
    )
  })

  it('answers a Basic navigation without the cookie by a page that reopens the URL, with the cookie', () => {
    const decision = gate(request('GET', '/app', [['Authorization', basic], NAVIGATE]))
    expect(seen(decision)).toMatchObject({ status: 200, outcome: 'admitted' })
    expect(headerOf(decision, 'set-cookie')).toContain(`=${COOKIE};`)
    expect(headerOf(decision, 'location')).toBeUndefined()
  })

  it('lets a Basic navigation that has the cookie through, with neither reaching the app', () => {
    expect(
      seen(
        gate(
          request('GET', '/app', [
            ['Authorization', basic],
            ['Cookie', `tunnel-credentials-gate=${COOKIE}`],
            NAVIGATE
          ])
        )
      )
    ).toEqual({ removeHeaders: ['Authorization', 'Cookie'] })
  })

  it('lets the cookie alone in, and gives the app only its own cookies, in order', () => {
    expect(
      seen(
        gate(
          request('POST', '/api', [
            ['Cookie', `a=1; __Host-tunnel-credentials-gate=${COOKIE}; b=2`]
          ])
        )
      )
    ).toEqual({ removeHeaders: ['Cookie'], addHeaders: [['Cookie', 'a=1; b=2']] })
    expect(
      seen(gate(request('GET', '/api', [['cookie', ` tunnel-credentials-gate = ${COOKIE} `]])))
    ).toEqual({
      removeHeaders: ['Cookie']
    })
  })

  it.each([
    ['the secret as the cookie', [['Cookie', `tunnel-credentials-gate=${SECRET}`]]],
    ['a wrong cookie', [['Cookie', `tunnel-credentials-gate=${COOKIE}x`]]],
    ['the cookie under another name', [['Cookie', `other=${COOKIE}`]]],
    ['the cookie in another field', [['X-Cookie', `tunnel-credentials-gate=${COOKIE}`]]]
  ] as [string, [string, string][]][])('refuses %s', (_, headers) => {
    expect(seen(gate(request('GET', '/api', headers)))).toMatchObject({ status: 401 })
  })

  it.each([
    [
      'an API call (Sec-Fetch-Mode: cors)',
      'GET',
      [
        ['Sec-Fetch-Mode', 'cors'],
        ['Accept', 'text/html']
      ]
    ],
    ['a form POST that navigates', 'POST', [NAVIGATE]],
    ['a GET that accepts anything', 'GET', [['Accept', '*/*']]],
    ['a GET that prefers JSON', 'GET', [['Accept', 'application/json, text/html;q=0.5']]],
    ['a GET without Accept', 'GET', []]
  ] as [string, string, [string, string][]][])(
    'gives %s no redirect and no cookie',
    (_, method, headers) => {
      expect(seen(gate(request(method, `${PREFIX}/hook`, headers)))).toEqual({ target: '/hook' })
    }
  )

  it('takes a GET that prefers HTML, without Fetch Metadata, for a navigation', () => {
    const decision = gate(
      request('GET', `${PREFIX}/p`, [['Accept', 'text/html,application/xhtml+xml,*/*;q=0.8']])
    )
    expect(seen(decision)).toMatchObject({ status: 303 })
  })

  it('never redirects to a path a browser would read as another host', () => {
    for (const rest of ['//evil.example/x', '/\\evil.example/x']) {
      const decision = gate(request('GET', `${PREFIX}${rest}`, [NAVIGATE]))
      expect(headerOf(decision, 'location')).toBeUndefined()
    }
  })

  it('gives the header form no redirect and no cookie, navigating or not', () => {
    expect(seen(gate(request('GET', '/p', [['X-Tunnel-Gate', SECRET], NAVIGATE])))).toEqual({
      removeHeaders: ['X-Tunnel-Gate']
    })
  })
})
