/**
 * An answer that names a tunnel user is a credential the service issued, even when this action
 * cannot use it: main refuses it and still revokes that user, at the same base-url, by a JSON body.
 */
import nock from 'nock'
import {
  API_KEY,
  BASE_URL,
  fakeClock,
  linesLeaking,
  runInProcess
} from '../../helpers/in-process-step.js'
import { useNock } from '../../helpers/nock-lifecycle.js'

// nock must patch http before @actions/http-client loads.
const { runMain, runPost } = await import('../../helpers/github-steps.js')

const ORIGIN = 'https://credentials.example.test'
const PROVISION = '/functions/v1/credential-provision'
const REVOKE = '/functions/v1/revoke-token'
const TOKEN = 'tok_3f9a8b7c6d5e4f3a2b1c'
const CREDENTIAL = {
  token: TOKEN,
  tunnel_user: 'ab12c',
  client_id: 'client-77',
  expires_at: '2026-11-23T11:00:00Z',
  tunnel_host: 'tunnel.example.test',
  tunnel_port: 2223
}
const INPUTS = { 'api-key': API_KEY, project: 'web-shop', 'base-url': BASE_URL }

useNock(nock)

/** Every revoke-token body sent to base-url, with the API key checked. */
function recordRevokes(status = 200): unknown[] {
  const revokes: unknown[] = []
  nock(ORIGIN, { reqheaders: { 'x-api-key': API_KEY, 'content-type': 'application/json' } })
    .post(REVOKE, sent => (revokes.push(sent), true))
    .times(3)
    .optionally()
    .reply(status, status === 200 ? { success: true } : { error: 'down', code: 'INTERNAL_ERROR' })
  return revokes
}

const runMainStep = (inputs: Record<string, string> = INPUTS) =>
  runInProcess(() => runMain(fakeClock()), inputs)

describe('an answer whose token is unusable', () => {
  it.each([
    ['a zero-width space', `tok_3f9a8b7c\u200b6d5e4f3a2b1c`],
    ['a bidi override', `tok_3f9a8b7c\u202e6d5e4f3a2b1c`],
    ['a lone surrogate', 'tok_\ud800'],
    ['an empty string', '']
  ])('holding %s is refused, and its user is revoked at once', async (_name, token) => {
    nock(ORIGIN)
      .post(PROVISION)
      .reply(200, { ...CREDENTIAL, token })
    const revokes = recordRevokes()
    const step = await runMainStep()
    expect(step.failed).toBe(true)
    expect(step.errors).toHaveLength(1)
    expect(step.errors[0]).toMatch(
      /^The credential service sent a credential that failed validation: token .*Nothing was exported\./
    )
    expect(step.env).toEqual({})
    expect(step.outputs).toEqual({})
    expect(revokes).toEqual([{ tunnel_user: 'ab12c' }])
    expect(step.lines).toContain(
      'Revoked the credential of tunnel user ab12c, which this step could not use.'
    )
  })
})

describe('an answer whose user is not plain ASCII', () => {
  it('revokes a user holding a bidi control, and never prints it raw', async () => {
    const user = 'b\u00e9la\u202ecod'
    nock(ORIGIN)
      .post(PROVISION)
      .reply(200, { ...CREDENTIAL, tunnel_user: user })
    const revokes = recordRevokes()
    const step = await runMainStep()
    expect(step.errors).toHaveLength(1)
    expect(step.errors[0]).toMatch(/tunnel_user holds whitespace or control characters/)
    expect(revokes).toEqual([{ tunnel_user: user }])
    expect(step.lines).toContain(
      'Revoked the credential of tunnel user b\u00e9la\\u202ecod, which this step could not use.'
    )
    expect(step.lines.filter(line => line.includes('\u202e'))).toEqual([])
    expect(linesLeaking(step, TOKEN)).toEqual([])
  })

  it('revokes a non-ASCII user in post when the revoke in main failed', async () => {
    const user = '\u30e6\u30fc\u30b6-7'
    nock(ORIGIN)
      .post(PROVISION)
      .reply(200, { ...CREDENTIAL, tunnel_user: user, tunnel_host: undefined })
    const failed = recordRevokes(500)
    const main = await runMainStep({ ...INPUTS, 'max-attempts': '1' })
    expect(main.errors[0]).toMatch(/tunnel_host is missing/)
    expect(failed).toEqual([{ tunnel_user: user }])
    expect(JSON.parse(main.state.credential)).toMatchObject({ tunnelUser: user, rejected: true })

    nock.cleanAll()
    const revokes = recordRevokes()
    const post = await runInProcess(() => runPost(fakeClock()), INPUTS, { state: main.state })
    expect(revokes).toEqual([{ tunnel_user: user }])
    expect(post.lines).toContain(`Revoked the tunnel token of user ${user}.`)
  })
})

describe('a body that starts with a byte order mark', () => {
  it('is read as JSON, and provisions as without it', async () => {
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(JSON.stringify(CREDENTIAL))
    ])
    nock(ORIGIN).post(PROVISION).reply(200, body, { 'content-type': 'application/json' })
    const revokes = recordRevokes()
    const step = await runMainStep()
    expect(step.errors).toEqual([])
    expect(step.failed).toBe(false)
    expect(step.env).toMatchObject({ SVC_TUNNEL_USER: 'ab12c', SVC_TUNNEL_TOKEN: TOKEN })
    expect(step.outputs).toMatchObject({ 'tunnel-user': 'ab12c', token: TOKEN })
    expect(revokes).toEqual([])
  })
})
