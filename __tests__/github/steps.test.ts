/**
 * What post's outcomes mean on GitHub: a failed revoke is a warning and the job goes on, a failed
 * step where fail-on-revoke-error asks, and information where the credential should already have
 * expired. What post does is tested through the in-memory host (__tests__/core/revoke-saved.test.ts).
 */
import nock from 'nock'
import { API_KEY, BASE_URL, fakeClock, runInProcess } from '../helpers/in-process-step.js'
import { useNock } from '../helpers/nock-lifecycle.js'

// nock must patch http before @actions/http-client loads.
const { runPost } = await import('../helpers/github-steps.js')

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

describe('post on GitHub', () => {
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
      "Could not revoke the tunnel token of user ab12c: The credential service failed (500 INTERNAL_ERROR). The service said: boom. This is on the service's side; re-run the job later. Gave up after 3 attempts (input max-attempts). It expires by itself at 2026-11-23T11:00:00Z."
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

  it('reports a failure on a token that should already have expired as information', async () => {
    nock(ORIGIN).post(REVOKE).reply(400, { error: 'bad', code: 'BAD_REQUEST' })
    const step = await runPostWith(
      { ...SAVED, expiresAt: '2026-11-23T10:00:00Z' },
      { ...INPUTS, 'fail-on-revoke-error': 'true' }
    )
    expect(step.failed).toBe(false)
    expect(step.warnings).toEqual([])
    expect(infoLines(step.lines)).toEqual([
      'Could not revoke the tunnel token of user ab12c: The credential service rejected the request as invalid (400 BAD_REQUEST). The service said: bad. Check input base-url. It should already have expired at 2026-11-23T10:00:00Z.'
    ])
  })
})
