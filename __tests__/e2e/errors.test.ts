/**
 * Failing main steps: each error answer of the service, bad answers, and bad inputs. A user sees
 * one error annotation, exit 1, and nothing exported; no secret shows.
 */
import {
  expectFailedMain,
  expectNoLeak,
  inputsFor,
  requestPaths,
  statusOf,
  runAction,
  useService
} from './helpers.js'

const service = useService()
const UNKNOWN_KEY = `sk_${'0123abcd'.repeat(8)}`

describe.each([
  ['400', { 'ttl-minutes': '5000' }, /rejected the request as invalid \(400 BAD_REQUEST\).*ttl/],
  ['401', { 'api-key': UNKNOWN_KEY }, /API key was rejected \(401 UNAUTHORIZED\)/],
  ['403', { 'api-key': 'KEY_WITHOUT_SCOPE' }, /not allowed.*\(403 FORBIDDEN\).*cicd:provision/],
  [
    '404',
    { project: 'no-such-project' },
    /Project "no-such-project" was not found, or input base-url does not point at the credential service's API \(404/
  ]
])('a %s answer', (_status, overrides: Record<string, string>, message) => {
  it('fails with one error, exports nothing, and is not retried', async () => {
    const inputs = inputsFor(service(), overrides)
    if (inputs['api-key'] === 'KEY_WITHOUT_SCOPE')
      inputs['api-key'] = service().seed.keyWithoutScope
    const { main, post } = await runAction(inputs)
    expectFailedMain(main, message)
    expect(requestPaths(service())).toEqual(['credential-provision'])
    expectNoLeak(main, { secrets: [inputs['api-key']], maskFirst: [inputs['api-key']] })
    // The post step of a failed main has nothing to revoke and sends nothing.
    const after = await post()
    expect(after.exitCode).toBe(0)
    expect(after.commands.filter(c => c.name === 'warning' || c.name === 'error')).toEqual([])
    expect(requestPaths(service())).toEqual(['credential-provision'])
  })
})

it('a 429 answer on the last attempt fails and says which limit', async () => {
  service().injectFault({ kind: '429', retryAfter: 30 })
  const { main } = await runAction(inputsFor(service(), { 'max-attempts': '1' }))
  expectFailedMain(main, /Rate limited.*429 RATE_LIMIT.*60 requests per hour/)
  expectNoLeak(main, { secrets: [service().seed.provisionKey] })
})

it('a non-JSON answer fails, naming base-url', async () => {
  service().injectFault({ kind: 'non-json' })
  const { main } = await runAction(inputsFor(service(), { 'max-attempts': '1' }))
  expectFailedMain(main, /unusable answer.*base-url/)
})

it('a connection closed without an answer fails after the attempts', async () => {
  service().injectFault({ kind: 'close' })
  const { main } = await runAction(inputsFor(service(), { 'max-attempts': '1' }))
  expectFailedMain(main, /Could not reach the credential service.*after 1 attempt/)
})

describe('hostile answers', () => {
  const token = 'tok_hostile0123456789'

  it('a host holding a newline and a second variable exports nothing', async () => {
    service().injectFault({
      kind: 'hostile',
      override: { token, tunnel_host: 'evil.example\nEVIL=1' }
    })
    const { main } = await runAction(inputsFor(service()))
    expectFailedMain(main, /tunnel_host/)
    expect(JSON.stringify(main.env)).not.toContain('EVIL')
    expect(main.lines.map(l => l.text)).not.toContain('EVIL=1')
    expectNoLeak(main, { secrets: [service().seed.provisionKey, token], mustMask: [token] })
    // Token and user passed their own checks: the service issued it, so main revoked it at once.
    expect(requestPaths(service())).toEqual(['credential-provision', 'revoke-token'])
  })

  it('a tunnel user holding ##[stop-commands] is refused, and printed so the runner does not obey it', async () => {
    const tunnelUser = 'ab12c##[stop-commands]pause1'
    service().injectFault({ kind: 'hostile', override: { token, tunnel_user: tunnelUser } })
    const { main } = await runAction(inputsFor(service()))
    expectFailedMain(main, /tunnel_user holds a log command marker/)
    expect(main.commands.filter(c => c.legacy)).toEqual([])
    expect(main.stdout).toContain('tunnel user ab12c\\u0023#[stop-commands]pause1')
    expect(requestPaths(service())).toEqual(['credential-provision', 'revoke-token'])
  })

  it('a token sent again as the tunnel user is refused and revoked, and never printed or saved', async () => {
    service().injectFault({ kind: 'hostile', override: { token, tunnel_user: token } })
    const { main } = await runAction(inputsFor(service()))
    expectFailedMain(main, /tunnel_user holds the token/)
    expectNoLeak(main, { secrets: [service().seed.provisionKey, token], mustMask: [token] })
    expect(service().requests().at(-1)?.body).toEqual({ tunnel_user: token })
  })

  it('a token with a space, or no token at all, exports nothing and its user is revoked', async () => {
    service().injectFault({ kind: 'hostile', override: { token: 'tok_a b' } })
    expectFailedMain((await runAction(inputsFor(service()))).main, /token/)
    service().injectFault({ kind: 'missing', fields: ['token'] })
    expectFailedMain((await runAction(inputsFor(service()))).main, /token/)
    const revoked = service()
      .requests()
      .filter(r => r.path.endsWith('/revoke-token'))
      .map(r => (r.body as { tunnel_user: string }).tunnel_user)
    expect(revoked).toHaveLength(2)
    for (const user of revoked) expect(statusOf(service(), user)).toBe('revoked')
  })

  it.each([
    ['a zero-width space', { token: 'tok_0123\u200b4567' }],
    ['a bidi override', { token: 'tok_0123\u202e4567' }],
    ['a non-ASCII user with a bidi mark', { tunnel_user: 'b\u00e9la\u200f7' }]
  ])(
    'an answer holding %s is refused, and the user it names is revoked',
    async (_name, override) => {
      service().injectFault({ kind: 'hostile', override })
      const { main } = await runAction(inputsFor(service()))
      expectFailedMain(
        main,
        /failed validation: (token|tunnel_user) holds whitespace or control characters/
      )
      expect(requestPaths(service())).toEqual(['credential-provision', 'revoke-token'])
      const sent = service().requests().at(-1)?.body as { tunnel_user: string }
      if ('tunnel_user' in override) {
        // Exactly the user the answer named, JSON-encoded (the stand-in issued another one).
        expect(sent).toEqual({ tunnel_user: override.tunnel_user })
      } else {
        expect(statusOf(service(), sent.tunnel_user)).toBe('revoked')
      }
    }
  )
})

it('an empty api-key with credential cicd fails before any request and points to auto', async () => {
  const { main } = await runAction(inputsFor(service(), { 'api-key': '' }))
  expectFailedMain(main, /api-key.*forks.*Set input credential to auto/s)
  expect(requestPaths(service())).toEqual([])
})
