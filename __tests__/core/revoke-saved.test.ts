/**
 * What post does with what main saved: it revokes by tunnel user, sends the API key only to the
 * base-url option, says why when it does nothing, and returns a failure that a host reports as a
 * warning, as information, or as a failed step where fail-on-revoke-error asks. Through the
 * in-memory host; the GitHub host's mapping of these outcomes is __tests__/github/steps.test.ts.
 */
import nock from 'nock'
import { API_KEY, BASE_URL } from '../helpers/in-process-step.js'
import { linesLeaking, revokeWith } from '../helpers/memory-step.js'
import { useNock } from '../helpers/nock-lifecycle.js'

const ORIGIN = 'https://credentials.example.test'
const REVOKE = '/functions/v1/revoke-token'
const SAVED = {
  kind: 'cicd',
  tunnelUser: 'ab12c',
  expiresAt: '2026-11-23T11:00:00Z'
}
const INPUTS = { 'api-key': API_KEY, project: 'web-shop', 'base-url': BASE_URL }

useNock(nock)

/** Post on what `saved` records, as main saved it. */
function post(
  saved: Record<string, unknown> | null = SAVED,
  inputs: Record<string, string> = INPUTS,
  now = '2026-11-23T10:30:00Z',
  state: Record<string, string> = saved ? { credential: JSON.stringify(saved) } : {}
) {
  return revokeWith(inputs, state, { now })
}

it('revokes by tunnel user with the API key from the input', async () => {
  let sentBody: unknown
  const scope = nock(ORIGIN, {
    reqheaders: { 'x-api-key': API_KEY, 'content-type': 'application/json' }
  })
    .post(REVOKE, body => ((sentBody = body), true))
    .reply(200, { success: true })
  const step = await post()
  expect(scope.isDone()).toBe(true)
  expect(sentBody).toEqual({ tunnel_user: 'ab12c' })
  expect(step.failed).toBe(false)
  expect(step.events[0]).toBe(`mask ${API_KEY}`)
  expect(step.infos).toEqual(['Revoked the tunnel token of user ab12c.'])
  expect(linesLeaking(step, API_KEY)).toEqual([])
})

it('treats 404 as already gone', async () => {
  nock(ORIGIN).post(REVOKE).reply(404, { error: 'not found', code: 'NOT_FOUND' })
  const step = await post()
  expect(step.failed).toBe(false)
  expect(step.warnings).toEqual([])
  expect(step.infos).toEqual([
    'The tunnel token of user ab12c was already revoked or has expired (404); nothing left to do.'
  ])
})

const UNREADABLE_STATE =
  'The saved state holds a credential that does not read as input credential "cicd", so nothing was revoked. ' +
  'If it was provisioned with other options, revoke with those; otherwise the state was written by something else.'

describe('does nothing, and says why, when', () => {
  const cases: [string, Record<string, unknown> | null, Record<string, string>, string][] = [
    [
      'main did not provision',
      null,
      INPUTS,
      'Nothing to revoke: no credential was provisioned, or it was already revoked.'
    ],
    [
      'the credential is free',
      { ...SAVED, kind: 'free', expiresAt: '2026-11-23T10:35:00Z' },
      { ...INPUTS, credential: 'free' },
      'Nothing to revoke: free credentials cannot be revoked. It expires by itself at 2026-11-23T10:35:00Z.'
    ],
    [
      'revoke is false',
      SAVED,
      { ...INPUTS, revoke: 'false' },
      'Not revoking tunnel user ab12c: input revoke is false. It expires by itself at 2026-11-23T11:00:00Z.'
    ]
  ]
  it.each(cases)('%s', async (_name, saved, inputs, message) => {
    const step = await post(saved, inputs)
    expect(step.failed).toBe(false)
    expect(step.warnings).toEqual([])
    expect(step.infos).toEqual([message])
  })

  it('the saved state is unreadable', async () => {
    const step = await post(null, INPUTS, '2026-11-23T10:00:00Z', { credential: '{not json' })
    expect(step.infos).toEqual([])
    expect(step.warnings).toEqual([UNREADABLE_STATE])
  })
})

describe('when revoking fails for good', () => {
  it('does not retry 403, and names the owner rule', async () => {
    const scope = nock(ORIGIN).post(REVOKE).reply(403, { error: 'not yours', code: 'FORBIDDEN' })
    const step = await post()
    expect(scope.isDone()).toBe(true)
    expect(step.warnings[0]).toMatch(
      /not allowed to do this \(403 FORBIDDEN\).*Use a key of the account that owns the token/
    )
  })

  it('warns when the api-key input is empty in post', async () => {
    const step = await post(SAVED, { ...INPUTS, 'api-key': '' })
    expect(step.warnings).toEqual([
      'Could not revoke the tunnel token of user ab12c: input api-key is empty when revoking, so the revoke request cannot be authenticated. It expires by itself at 2026-11-23T11:00:00Z.'
    ])
  })

  it('says the expiry is unknown when the service gave none', async () => {
    nock(ORIGIN).post(REVOKE).reply(400, { error: 'bad', code: 'BAD_REQUEST' })
    const { expiresAt: _unused, ...noExpiry } = SAVED
    const step = await post(noExpiry)
    expect(step.warnings[0]).toMatch(/Its expiry is unknown\.$/)
  })

  it('warns, sending nothing, when the credential input cannot be read', async () => {
    const step = await post(SAVED, { ...INPUTS, credential: 'gold' })
    expect(step.warnings).toEqual([
      'Could not revoke what was provisioned: Input credential is "gold": expected one of cicd, free, auto, ssh-key or existing.'
    ])
  })

  it('warns on a post-step input that cannot be read', async () => {
    const step = await post(SAVED, { ...INPUTS, 'max-attempts': 'many' })
    expect(step.warnings[0]).toMatch(/Input max-attempts is "many"/)
  })
})

describe('saved state is not trusted', () => {
  it('sends the key only to the base-url input, warning when the state names another place', async () => {
    const elsewhere = nock('https://attacker.example.test').post(/.*/).reply(200, {})
    const scope = nock(ORIGIN, { reqheaders: { 'x-api-key': API_KEY } })
      .post(REVOKE, { tunnel_user: 'ab12c' })
      .reply(200, { success: true })
    const step = await post({
      ...SAVED,
      baseUrl: 'http://attacker.example.test/functions/v1'
    })
    expect(scope.isDone()).toBe(true)
    expect(elsewhere.isDone()).toBe(false)
    expect(step.warnings).toEqual([
      'The saved state names the credential service at http://attacker.example.test/functions/v1, but input base-url is https://credentials.example.test/functions/v1. The API key goes only to input base-url, so the revoke is sent there. Something other than this tool may have written the state.'
    ])
    expect(step.lines).toContain('Revoked the tunnel token of user ab12c.')
  })

  it('validates the base-url input as main does, and sends nothing when it is bad', async () => {
    const step = await post(SAVED, { ...INPUTS, 'base-url': 'http://attacker.example.test' })
    expect(step.failed).toBe(false)
    expect(step.warnings).toHaveLength(1)
    expect(step.warnings[0]).toMatch(
      /^Could not revoke the tunnel token of user ab12c: Input base-url is "http:\/\/attacker\.example\.test": it must use https/
    )
  })

  it('ignores a saved tunnel user that could start a log line', async () => {
    const step = await post({ ...SAVED, tunnelUser: 'ab12c\n::stop-commands::x' })
    expect(step.lines.filter(line => line.startsWith('::stop-commands'))).toEqual([])
    expect(step.warnings).toEqual([UNREADABLE_STATE])
  })

  it('escapes a saved expiry that holds a line break', async () => {
    const step = await post(
      { ...SAVED, expiresAt: '2026\n::stop-commands::x' },
      { ...INPUTS, revoke: 'false' }
    )
    expect(step.events).toEqual([
      `mask ${API_KEY}`,
      'info Not revoking tunnel user ab12c: input revoke is false. It expires by itself at 2026\\u000a::stop-commands::x.'
    ])
  })
})

describe('the service, not the runner clock, decides', () => {
  it('sends the revoke for a token whose expiry has passed by the runner clock', async () => {
    const scope = nock(ORIGIN).post(REVOKE).reply(200, { success: true })
    const step = await post({ ...SAVED, expiresAt: '2026-11-23T10:00:00Z' })
    expect(scope.isDone()).toBe(true)
    expect(step.infos).toEqual(['Revoked the tunnel token of user ab12c.'])
  })

  it('does not skip a cicd credential because the state calls it free', async () => {
    const scope = nock(ORIGIN).post(REVOKE).reply(200, { success: true })
    const step = await post({ ...SAVED, kind: 'free' })
    expect(scope.isDone()).toBe(true)
    expect(step.infos).toEqual(['Revoked the tunnel token of user ab12c.'])
  })
})

describe('any 2xx is a successful revoke', () => {
  it.each([
    ['204 with no body', 204, ''],
    ['200 with an empty body', 200, ''],
    ['200 with a body that is not JSON', 200, 'OK']
  ])('%s', async (_name, status, body) => {
    nock(ORIGIN).post(REVOKE).reply(status, body)
    const step = await post()
    expect(step.warnings).toEqual([])
    expect(step.infos).toEqual(['Revoked the tunnel token of user ab12c.'])
  })
})

describe('big numbers', () => {
  it('warns, and does not fail the job, on a retry_after of 1e13', async () => {
    nock(ORIGIN).post(REVOKE).reply(429, { error: 'limit', code: 'RATE_LIMIT', retry_after: 1e13 })
    const step = await post()
    expect(step.failed).toBe(false)
    expect(step.warnings).toHaveLength(1)
    expect(step.warnings[0]).toMatch(/It asks to wait 10000000000000 s.*re-run the job later\./)
  })
})

it("hides a credential the service echoes in a failed revoke's error and code, on retry and warning lines", async () => {
  nock(ORIGIN)
    .post(REVOKE)
    .times(3)
    .reply(503, { error: `X-API-Key ${API_KEY} is not allowed`, code: 'tok_3f9a8b7c6d5e4f3a2b1c' })
  const step = await post()
  expect(step.failed).toBe(false)
  expect(step.lines).toContain(
    'Attempt 1 of 3 failed (HTTP 503 ***: X-API-Key *** is not allowed); retrying in 0.8 s.'
  )
  expect(step.warnings).toEqual([
    expect.stringContaining('The service said: X-API-Key *** is not allowed')
  ])
  expect(linesLeaking(step, API_KEY)).toEqual([])
  expect(step.lines.filter(line => line.includes('tok_'))).toEqual([])
})

it('prints a saved tunnel user holding ##[ escaped, so the runner does not obey it', async () => {
  nock(ORIGIN).post(REVOKE, { tunnel_user: 'ab12c##[add-mask]x' }).reply(200, { success: true })
  const step = await post({ ...SAVED, tunnelUser: 'ab12c##[add-mask]x' })
  expect(step.infos).toEqual(['Revoked the tunnel token of user ab12c\\u0023#[add-mask]x.'])
  expect(step.lines.filter(line => line.includes('##['))).toEqual([])
})
