import nock from 'nock'
import {
  API_KEY,
  BASE_URL,
  fakeClock,
  linesLeaking,
  runInProcess
} from './helpers/in-process-step.js'
import { useNock } from './helpers/nock-lifecycle.js'

// nock must patch http before @actions/http-client loads.
const { runPost } = await import('../src/post.js')

const ORIGIN = 'https://credentials.example.test'
const REVOKE = '/functions/v1/revoke-token'
const SAVED = {
  kind: 'cicd',
  tunnelUser: 'ab12c',
  expiresAt: '2026-11-23T11:00:00Z'
}
const INPUTS = { 'api-key': API_KEY, project: 'web-shop', 'base-url': BASE_URL }

useNock(nock)

function runPostWith(
  saved: Record<string, unknown> | null = SAVED,
  inputs: Record<string, string> = INPUTS,
  clock = fakeClock('2026-11-23T10:30:00Z')
) {
  const state: Record<string, string> = { isPost: 'true' }
  if (saved) state.credential = JSON.stringify(saved)
  return runInProcess(() => runPost(clock), inputs, { state })
}

const infoLines = (lines: string[]) => lines.filter(line => !line.startsWith('::'))

it('revokes by tunnel user with the API key from the input', async () => {
  let sentBody: unknown
  const scope = nock(ORIGIN, {
    reqheaders: { 'x-api-key': API_KEY, 'content-type': 'application/json' }
  })
    .post(REVOKE, body => ((sentBody = body), true))
    .reply(200, { success: true })
  const step = await runPostWith()
  expect(scope.isDone()).toBe(true)
  expect(sentBody).toEqual({ tunnel_user: 'ab12c' })
  expect(step.failed).toBe(false)
  expect(step.lines[0]).toBe(`::add-mask::${API_KEY}`)
  expect(infoLines(step.lines)).toEqual(['Revoked the tunnel token of user ab12c.'])
  expect(linesLeaking(step, API_KEY)).toEqual([])
})

it('treats 404 as already gone', async () => {
  nock(ORIGIN).post(REVOKE).reply(404, { error: 'not found', code: 'NOT_FOUND' })
  const step = await runPostWith()
  expect(step.failed).toBe(false)
  expect(step.warnings).toEqual([])
  expect(infoLines(step.lines)).toEqual([
    'The tunnel token of user ab12c was already revoked or has expired (404); nothing left to do.'
  ])
})

describe('does nothing, and says why, when', () => {
  const cases: [string, Record<string, unknown> | null, Record<string, string>, string][] = [
    [
      'main did not provision',
      null,
      INPUTS,
      'Nothing to revoke: the main step did not provision a credential.'
    ],
    [
      'the credential is free',
      { ...SAVED, kind: 'free', expiresAt: '2026-11-23T10:35:00Z' },
      INPUTS,
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
    const step = await runPostWith(saved, inputs)
    expect(step.failed).toBe(false)
    expect(step.warnings).toEqual([])
    expect(infoLines(step.lines)).toEqual([message])
  })

  it('the saved state is unreadable', async () => {
    const step = await runInProcess(() => runPost(fakeClock()), INPUTS, {
      state: { isPost: 'true', credential: '{not json' }
    })
    expect(infoLines(step.lines)).toEqual([
      'Nothing to revoke: the main step did not provision a credential.'
    ])
  })
})

describe('when revoking fails for good', () => {
  it('warns with the expiry and exits 0 after retrying 5xx', async () => {
    const scope = nock(ORIGIN)
      .post(REVOKE)
      .times(3)
      .reply(500, { error: 'boom', code: 'INTERNAL_ERROR' })
    const clock = fakeClock('2026-11-23T10:30:00Z')
    const step = await runPostWith(SAVED, INPUTS, clock)
    expect(scope.isDone()).toBe(true)
    expect(clock.sleeps).toHaveLength(2)
    expect(step.failed).toBe(false)
    expect(step.warnings).toEqual([
      "Could not revoke the tunnel token of user ab12c: The credential service failed (500 INTERNAL_ERROR). The service said: boom This is on the service's side; re-run the job later. Gave up after 3 attempts (input max-attempts). It expires by itself at 2026-11-23T11:00:00Z."
    ])
  })

  it('fails the step with fail-on-revoke-error', async () => {
    nock(ORIGIN).post(REVOKE).reply(401, { error: 'bad key', code: 'UNAUTHORIZED' })
    const step = await runPostWith(SAVED, { ...INPUTS, 'fail-on-revoke-error': 'true' })
    expect(step.failed).toBe(true)
    expect(step.errors).toHaveLength(1)
    expect(step.errors[0]).toMatch(
      /^Could not revoke the tunnel token of user ab12c: The API key was rejected \(401 UNAUTHORIZED\)/
    )
  })

  it('does not retry 403, and names the owner rule', async () => {
    const scope = nock(ORIGIN).post(REVOKE).reply(403, { error: 'not yours', code: 'FORBIDDEN' })
    const step = await runPostWith()
    expect(scope.isDone()).toBe(true)
    expect(step.warnings[0]).toMatch(
      /not allowed to do this \(403 FORBIDDEN\).*Use a key of the account that owns the token/
    )
  })

  it('warns when the api-key input is empty in post', async () => {
    const step = await runPostWith(SAVED, { ...INPUTS, 'api-key': '' })
    expect(step.warnings).toEqual([
      'Could not revoke the tunnel token of user ab12c: input api-key is empty in the post step, so the revoke request cannot be authenticated. It expires by itself at 2026-11-23T11:00:00Z.'
    ])
  })

  it('says the expiry is unknown when the service gave none', async () => {
    nock(ORIGIN).post(REVOKE).reply(400, { error: 'bad', code: 'BAD_REQUEST' })
    const { expiresAt: _unused, ...noExpiry } = SAVED
    const step = await runPostWith(noExpiry)
    expect(step.warnings[0]).toMatch(/Its expiry is unknown\.$/)
  })

  it('warns on a post-step input that cannot be read', async () => {
    const step = await runPostWith(SAVED, { ...INPUTS, 'max-attempts': 'many' })
    expect(step.warnings[0]).toMatch(/Input max-attempts is "many"/)
  })
})
