/**
 * The gate's decisions for browsers (pure): a navigation that carries the secret in the URL or as
 * Basic gets a redirect to the same path without it and the gate's cookie; the cookie then lets
 * requests in and never reaches the app; a client that sends the secret on each request (a
 * webhook sender, curl, an API test) gets its answer, never a redirect or a cookie.
 */
import { createHmac } from 'node:crypto'
import { makeGate } from '../../../../../src/core/tunnel/keeper/http/gate.js'
import {
  gateSetCookie,
  readCookieFields
} from '../../../../../src/core/tunnel/keeper/http/gate-cookie.js'
import type { RequestHead } from '../../../../../src/core/tunnel/keeper/http/hooks.js'
import { isNavigation, prefersHtml } from '../../../../../src/core/tunnel/keeper/http/navigation.js'
import { secureCookieFor } from '../../../../../src/core/tunnel/keeper/forwarding/handlers.js'
import { gateCookieValue } from '../../../../../src/core/tunnel/protocol.js'

const SECRET = 'Zm9vYmFyLXNlY3JldC12YWx1ZS0xMjM0NTY3ODkwYWJj'
const COOKIE = createHmac('sha256', SECRET).update('gate-cookie').digest('base64url')
const BASIC: [string, string] = [
  'Authorization',
  `Basic ${Buffer.from(`tunnel:${SECRET}`).toString('base64')}`
]
const NAVIGATE: [string, string] = ['Sec-Fetch-Mode', 'navigate']
const BROWSER_ACCEPT: [string, string] = [
  'Accept',
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8'
]

const head = (
  target: string,
  headers: [string, string][] = [],
  method = 'GET',
  entry = 'web'
): RequestHead => ({
  entry,
  method,
  target,
  httpVersion: 'HTTP/1.1',
  headers: [['Host', 'web.example'], ...headers]
})

const secureFor = (entry: string) => entry === 'tls'
const gate = makeGate(SECRET, secureFor)

const setCookie = (secure = false) =>
  secure
    ? `__Host-tunnel-credentials-gate=${COOKIE}; Path=/; HttpOnly; SameSite=Lax; Secure`
    : `tunnel-credentials-gate=${COOKIE}; Path=/; HttpOnly; SameSite=Lax`

function redirect(location: string) {
  return {
    answer: {
      status: 303,
      headers: [
        ['Location', location],
        ['Set-Cookie', setCookie()],
        ['Cache-Control', 'no-store']
      ],
      body: ''
    },
    outcome: 'admitted'
  }
}

/** The page a Basic navigation gets: the cookie, and a script that reopens the URL bare. */
function page(secure = false) {
  return {
    answer: {
      status: 200,
      headers: expect.arrayContaining([
        ['Content-Type', 'text/html; charset=utf-8'],
        ['Set-Cookie', setCookie(secure)],
        ['Cache-Control', 'no-store'],
        [
          'Content-Security-Policy',
          expect.stringMatching(/^default-src 'none'; script-src 'sha256-/)
        ]
      ]),
      body: expect.stringContaining(
        '<script>location.replace(location.origin + location.pathname + location.search + location.hash)</script>'
      )
    },
    outcome: 'admitted'
  }
}

const status = (decision: unknown): number | undefined =>
  typeof decision === 'object' && decision !== null && 'answer' in decision
    ? (decision as { answer: { status: number } }).answer.status
    : undefined

describe('a navigation that carries the secret', () => {
  it('with Basic: a page that reopens its own URL without user info, with the cookie', () => {
    const decision = gate(head('/app/page?tab=2', [NAVIGATE, BASIC]))
    expect(decision).toEqual(page())
    // No Location: a path resolved against a user:secret@ URL would keep the user info.
    expect(JSON.stringify(decision)).not.toContain('Location')
    expect(JSON.stringify(decision)).not.toContain('/app/page')
  })

  it('with the path prefix: a 303 to the path without it, cookie or no cookie', () => {
    const target = `/_tunnel-gate/${SECRET}/app?x=1`
    expect(gate(head(target, [NAVIGATE]))).toEqual(redirect('/app?x=1'))
    expect(gate(head(`/_tunnel-gate/${SECRET}`, [NAVIGATE]))).toEqual(redirect('/'))
    // The URL in the address bar and history loses the secret even for a browser let in already.
    const withCookie = head(target, [NAVIGATE, ['Cookie', `tunnel-credentials-gate=${COOKIE}`]])
    expect(gate(withCookie)).toEqual(redirect('/app?x=1'))
  })

  it('from a browser without Fetch Metadata: a GET whose Accept prefers HTML', () => {
    expect(gate(head('/', [BROWSER_ACCEPT, BASIC]))).toEqual(page())
    expect(gate(head(`/_tunnel-gate/${SECRET}/a`, [BROWSER_ACCEPT]))).toEqual(redirect('/a'))
  })

  it('on an https entry: the cookie is Secure and __Host- prefixed', () => {
    expect(gate(head('/', [NAVIGATE, BASIC], 'GET', 'tls'))).toEqual(page(true))
  })

  it('is Secure unless told the URL is http', () => {
    expect(makeGate(SECRET)(head('/', [NAVIGATE, BASIC]))).toEqual(page(true))
  })

  it('never gets a Location that names a host: such a target is forwarded, secret taken off', () => {
    for (const path of ['//evil.example/x', '/\\evil.example/x']) {
      expect(gate(head(`/_tunnel-gate/${SECRET}${path}`, [NAVIGATE]))).toEqual({
        forward: { target: path }
      })
    }
    // Basic's page names no place at all: the browser reopens the URL it is at.
    for (const target of ['//evil.example/x', 'http://evil.example/x']) {
      expect(gate(head(target, [NAVIGATE, BASIC]))).toEqual(page())
    }
  })
})

describe('no admission, no cookie', () => {
  it('for a client that sends Basic on each request (curl -u): forwarded without it', () => {
    const accepts: [string, string][][] = [
      [],
      [['Accept', '*/*']],
      [['Accept', 'application/json']]
    ]
    for (const accept of accepts) {
      expect(gate(head('/api', [...accept, BASIC]))).toEqual({
        forward: { removeHeaders: ['Authorization'] }
      })
    }
  })

  it('for the header form, even on a navigation: it is sent with every request anyway', () => {
    expect(gate(head('/', [NAVIGATE, ['X-Tunnel-Gate', SECRET]]))).toEqual({
      forward: { removeHeaders: ['X-Tunnel-Gate'] }
    })
  })

  it('for a webhook sender POSTing to the path form, even one that says navigate', () => {
    const target = `/_tunnel-gate/${SECRET}/hooks/stripe`
    expect(gate(head(target, [['Accept', '*/*']], 'POST'))).toEqual({
      forward: { target: '/hooks/stripe' }
    })
    expect(gate(head(target, [NAVIGATE, BROWSER_ACCEPT], 'POST'))).toEqual({
      forward: { target: '/hooks/stripe' }
    })
  })

  it("for a page's own fetch() that asks for HTML: Fetch Metadata says it is not a navigation", () => {
    const cors: [string, string][] = [['Sec-Fetch-Mode', 'cors'], BROWSER_ACCEPT, BASIC]
    expect(gate(head('/partial', cors))).toEqual({ forward: { removeHeaders: ['Authorization'] } })
  })

  it('for a browser that has the cookie and still sends Basic: both taken off, no loop', () => {
    const decision = gate(
      head('/', [NAVIGATE, BASIC, ['Cookie', `a=1; tunnel-credentials-gate=${COOKIE}`]])
    )
    expect(decision).toEqual({
      forward: { removeHeaders: ['Authorization', 'Cookie'], addHeaders: [['Cookie', 'a=1']] }
    })
  })

  it('for a navigation whose Basic holds another password (the app’s own): refused', () => {
    const other = ['Authorization', `Basic ${Buffer.from('tunnel:nope').toString('base64')}`]
    expect(status(gate(head('/', [NAVIGATE, other as [string, string]])))).toBe(401)
  })
})

describe('the cookie', () => {
  it('alone lets a request in; only the gate cookie leaves the Cookie field, in any place', () => {
    expect(gate(head('/api/items', [['Cookie', `tunnel-credentials-gate=${COOKIE}`]]))).toEqual({
      forward: { removeHeaders: ['Cookie'] }
    })
    const mixed = gate(
      head('/api/items', [
        ['Cookie', `session=abc; tunnel-credentials-gate=${COOKIE}; theme=dark`],
        ['Cookie', '__Host-tunnel-credentials-gate=stale; lang=en']
      ])
    )
    expect(mixed).toEqual({
      forward: {
        removeHeaders: ['Cookie'],
        addHeaders: [['Cookie', 'session=abc; theme=dark; lang=en']]
      }
    })
  })

  it("keeps the app's own Authorization when the cookie lets the request in", () => {
    const decision = gate(
      head('/', [
        NAVIGATE,
        ['Authorization', 'Bearer app'],
        ['Cookie', `tunnel-credentials-gate=${COOKIE}`]
      ])
    )
    expect(decision).toEqual({ forward: { removeHeaders: ['Cookie'] } })
  })

  it('under the https name is accepted too', () => {
    const cookie = `__Host-tunnel-credentials-gate=${COOKIE}`
    expect(gate(head('/', [['Cookie', cookie]]))).toEqual({
      forward: { removeHeaders: ['Cookie'] }
    })
  })

  it.each([
    ['another value', `tunnel-credentials-gate=${COOKIE.slice(1)}x`],
    ['the secret itself', `tunnel-credentials-gate=${SECRET}`],
    ['another name', `gate=${COOKIE}`],
    ['the value as a name', `${COOKIE}`],
    ['an empty value', 'tunnel-credentials-gate=']
  ])('refuses %s', (_, cookie) => {
    expect(status(gate(head('/', [NAVIGATE, ['Cookie', cookie]])))).toBe(401)
  })

  it('lets nothing in when the gate has no secret, not even the cookie of an empty one', () => {
    const empty = makeGate('')
    const cookie = `tunnel-credentials-gate=${gateCookieValue('')}`
    expect(status(empty(head('/', [['Cookie', cookie]])))).toBe(401)
    expect(status(makeGate(undefined)(head('/', [['Cookie', 'tunnel-credentials-gate=']])))).toBe(
      401
    )
  })

  it('is an HMAC of the secret, not the secret, and differs from run to run', () => {
    expect(gateCookieValue(SECRET)).toBe(COOKIE)
    expect(COOKIE).not.toContain(SECRET)
    expect(gateCookieValue(`${SECRET}x`)).not.toBe(COOKIE)
  })

  it('is set host-only, HttpOnly, SameSite=Lax, Path=/; Secure under the __Host- name', () => {
    expect(gateSetCookie('v', false)).toBe(
      'tunnel-credentials-gate=v; Path=/; HttpOnly; SameSite=Lax'
    )
    expect(gateSetCookie('v', true)).toBe(
      '__Host-tunnel-credentials-gate=v; Path=/; HttpOnly; SameSite=Lax; Secure'
    )
  })

  it('is read from every Cookie field, pairs trimmed, empty pairs and other fields ignored', () => {
    expect(
      readCookieFields([
        ['X-Cookie', 'tunnel-credentials-gate=no'],
        ['cookie', ' a=1 ;; tunnel-credentials-gate = v1 ;b'],
        ['COOKIE', '__Host-tunnel-credentials-gate=v2']
      ])
    ).toEqual({ gateValues: ['v1', 'v2'], appCookies: 'a=1; b', holdsGateCookie: true })
    expect(readCookieFields([['Cookie', 'a=1']])).toEqual({
      gateValues: [],
      appCookies: 'a=1',
      holdsGateCookie: false
    })
    expect(readCookieFields([])).toEqual({
      gateValues: [],
      appCookies: undefined,
      holdsGateCookie: false
    })
  })

  it('reads a navigation from any Sec-Fetch-Mode field, and weights as RFC 9110 writes them', () => {
    expect(
      isNavigation('GET', [
        ['Sec-Fetch-Mode', 'cors'],
        ['Sec-Fetch-Mode', 'navigate']
      ])
    ).toBe(true)
    // Three decimals weigh as written: html at 0.25 is below the rest at 0.5.
    expect(prefersHtml('text/html;q=0.25, */*;q=0.5')).toBe(false)
    // Not a weight (trailing text, over 1, another parameter named like q): read as 1.
    expect(prefersHtml('text/html;q=0.5x')).toBe(true)
    expect(prefersHtml('text/html, application/json;q=20')).toBe(true)
    expect(prefersHtml('text/html;xq=0')).toBe(true)
  })

  it("leaves the app a pair without '=' whose text starts with the gate cookie's name", () => {
    // Nameless (RFC 6265 5.4): not the gate's, whatever its first characters are.
    expect(readCookieFields([['Cookie', 'tunnel-credentials-gateX; a=1']])).toEqual({
      gateValues: [],
      appCookies: 'tunnel-credentials-gateX; a=1',
      holdsGateCookie: false
    })
  })
})

describe('a navigation', () => {
  it('is what Fetch Metadata says, when the client sends it', () => {
    expect(isNavigation('GET', [NAVIGATE])).toBe(true)
    expect(isNavigation('GET', [['sec-fetch-mode', ' Navigate ']])).toBe(true)
    expect(isNavigation('GET', [['Sec-Fetch-Mode', 'no-cors'], BROWSER_ACCEPT])).toBe(false)
    expect(isNavigation('GET', [['Sec-Fetch-Mode', 'websocket']])).toBe(false)
  })

  it('is a GET only', () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS', 'HEAD', 'get']) {
      expect(isNavigation(method, [NAVIGATE, BROWSER_ACCEPT])).toBe(false)
    }
  })

  it('without Fetch Metadata, is a request whose Accept prefers HTML', () => {
    expect(isNavigation('GET', [BROWSER_ACCEPT])).toBe(true)
    expect(
      isNavigation('GET', [
        ['Accept', 'text/html'],
        ['Accept', 'application/json']
      ])
    ).toBe(true)
    expect(isNavigation('GET', [['Accept', '*/*']])).toBe(false)
    expect(isNavigation('GET', [])).toBe(false)
  })
})

describe('prefersHtml', () => {
  it.each([
    ['text/html', true],
    ['TEXT/HTML; charset=utf-8', true],
    ['text/html;q=0.5, */*;q=0.5', true],
    ['application/json, text/html;q=0.9', false],
    ['text/html;q=0', false],
    ['text/html;q=0.001', true],
    ['text/html;q=0.5, application/json;q=0.501', false],
    ['text/html;q=2, application/json;q=0.9', true],
    ['text/html;q=abc, application/json', true],
    ['text/html;q=1.5, application/json', true],
    ['text/html;level=1;q=0.2, application/json;q=0.3', false],
    ['text/html; q = 0.2, application/json;q=0.3', false],
    ['*/*', false],
    ['text/*', false],
    ['', false],
    [' , text/html', true],
    [', text/html;q=0.5', true],
    ['text/html;q=0.9, text/html;q=0.1, application/json;q=0.5', true],
    ['application/json;q=0.9, image/png;q=0.1, text/html;q=0.5', false]
  ])('%j: %s', (accept, expected) => {
    expect(prefersHtml(accept)).toBe(expected)
  })
})

describe('whether the cookie is Secure', () => {
  it('follows the scheme of the URL main formed for the entry; Secure when main sent none', () => {
    const secure = secureCookieFor({
      publicUrls: { web: 'https://web-u1.tunnel.example', local: 'HTTP://web.localhost:8080' }
    })
    expect(['web', 'local', 'other', '__proto__'].map(secure)).toEqual([true, false, true, true])
    expect(secureCookieFor({})('web')).toBe(true)
  })
})
