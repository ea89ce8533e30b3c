/**
 * The gate's decision for one request from an API client or a webhook sender (no browser
 * navigation): what passes, what the app is then sent, and what is refused with 401 and never
 * reaches the app.
 */
import { makeGate } from '../../../../../src/core/tunnel/keeper/http/gate.js'
import type {
  RequestDecision,
  RequestHead
} from '../../../../../src/core/tunnel/keeper/http/hooks.js'

const SECRET = 'Zx9_Qw-Ab3kLmPq7'

function request(target: string, headers: [string, string][] = []): RequestHead {
  return { entry: 'web', method: 'POST', target, httpVersion: 'HTTP/1.1', headers }
}

const basic = (userAndPassword: string): string =>
  `Basic ${Buffer.from(userAndPassword, 'utf8').toString('base64')}`

/** What the app is sent (target, fields removed), or the status the client gets instead. */
function outcome(decision: RequestDecision): unknown {
  if (decision === 'forward') return 'forward'
  if ('answer' in decision) return decision.answer.status
  return decision.forward
}

const gate = makeGate(SECRET)
const decide = (target: string, headers: [string, string][] = []) =>
  outcome(gate(request(target, headers)))

describe('the gate, for API clients and webhook senders', () => {
  it('refuses a request without the secret with 401, a Basic challenge and how to get in', () => {
    const decision = gate(request('/hooks', [['Host', 'app.example']]))
    expect(decision).toMatchObject({ outcome: 'refused', answer: { status: 401 } })
    if (decision === 'forward' || !('answer' in decision)) throw new Error('not refused')
    const { headers, body } = decision.answer
    expect(headers).toEqual(
      expect.arrayContaining([
        ['WWW-Authenticate', 'Basic realm="tunnel-credentials gate", charset="UTF-8"'],
        ['Cache-Control', 'no-store']
      ])
    )
    expect(String(body)).toContain('X-Tunnel-Gate: <secret>')
    expect(String(body)).toContain('/_tunnel-gate/<secret>/')
    expect(String(body)).not.toContain(SECRET)
  })

  it('passes the header form and takes it off, whatever its case and surrounding blanks', () => {
    expect(decide('/a', [['X-Tunnel-Gate', SECRET]])).toEqual({ removeHeaders: ['X-Tunnel-Gate'] })
    expect(decide('/a', [['x-tunnel-gate', ` ${SECRET}\t`]])).toEqual({
      removeHeaders: ['X-Tunnel-Gate']
    })
  })

  it('passes Basic with any user and the secret as the password, and takes it off', () => {
    for (const value of [
      basic(`user:${SECRET}`),
      basic(`:${SECRET}`),
      `  bAsIc   ${Buffer.from(`x:${SECRET}`).toString('base64')}  `,
      `Basic ${Buffer.from(`x:${SECRET}`).toString('base64url')}`
    ]) {
      expect(decide('/a', [['authorization', value]])).toEqual({ removeHeaders: ['Authorization'] })
    }
  })

  it('passes the path form and gives the app the path after it', () => {
    const prefix = `/_tunnel-gate/${SECRET}`
    expect(decide(`${prefix}/hooks/stripe?attempt=1`)).toEqual({
      target: '/hooks/stripe?attempt=1'
    })
    expect(decide(prefix)).toEqual({ target: '/' })
    expect(decide(`${prefix}/`)).toEqual({ target: '/' })
    expect(decide(`${prefix}?a=1`)).toEqual({ target: '/?a=1' })
    expect(decide(`${prefix}#x`)).toEqual({ target: '/#x' })
  })

  it('takes off every form a client sent at once', () => {
    expect(
      decide(`/_tunnel-gate/${SECRET}/x`, [
        ['X-Tunnel-Gate', SECRET],
        ['Authorization', basic(`u:${SECRET}`)]
      ])
    ).toEqual({ target: '/x', removeHeaders: ['X-Tunnel-Gate', 'Authorization'] })
  })

  it("leaves the app's own Authorization alone when the header form passes", () => {
    expect(
      decide('/a', [
        ['X-Tunnel-Gate', SECRET],
        ['Authorization', 'Bearer app-token']
      ])
    ).toEqual({ removeHeaders: ['X-Tunnel-Gate'] })
  })

  it.each([
    ['a wrong header value', '/a', [['X-Tunnel-Gate', `${SECRET}x`]]],
    ['the secret in another header', '/a', [['X-Tunnel-Gat', SECRET]]],
    ['a start of the secret', '/a', [['X-Tunnel-Gate', SECRET.slice(0, -1)]]],
    ['the secret as the Basic user', '/a', [['Authorization', basic(`${SECRET}:x`)]]],
    ['the secret after a second colon', '/a', [['Authorization', basic(`u:x:${SECRET}`)]]],
    ['Basic without a colon', '/a', [['Authorization', basic(SECRET)]]],
    ['Bearer with the secret', '/a', [['Authorization', `Bearer ${SECRET}`]]],
    ['Basic with the secret in clear', '/a', [['Authorization', `Basic ${SECRET}`]]],
    [
      'Basic with text after the credential',
      '/a',
      [['Authorization', `${basic(`u:${SECRET}`)} x`]]
    ],
    ['Basic with text before it', '/a', [['Authorization', `x ${basic(`u:${SECRET}`)}`]]],
    ['the Basic scheme alone', '/a', [['Authorization', 'Basic']]],
    ['the Basic form in another header', '/a', [['X-Authorization', basic(`u:${SECRET}`)]]],
    ['a wrong path secret', `/_tunnel-gate/${SECRET}x/a`, []],
    ['a path secret with a start missing', `/_tunnel-gate/${SECRET.slice(1)}`, []],
    ['the path form further in', `/x/_tunnel-gate/${SECRET}/a`, []],
    ['the prefix without its slash', `/_tunnel-gate${SECRET}/a`, []],
    ['the prefix alone', '/_tunnel-gate/', []],
    ['the secret in the query', `/a?_tunnel-gate=${SECRET}`, []]
  ] as [string, string, [string, string][]][])('refuses %s', (_, target, headers) => {
    expect(decide(target, headers)).toBe(401)
  })

  it('refuses everything when it has no secret, rather than letting everything in', () => {
    for (const secret of [undefined, '']) {
      const open = makeGate(secret)
      expect(outcome(open(request('/_tunnel-gate//a', [['X-Tunnel-Gate', '']])))).toBe(401)
      expect(outcome(open(request('/a', [['Authorization', basic('u:')]])))).toBe(401)
    }
  })
})
