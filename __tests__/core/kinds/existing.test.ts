/** credential: existing, main and post in this process; no network is allowed at all. */
import nock from 'nock'
import { fakeClock, linesLeaking, runInProcess } from '../../helpers/in-process-step.js'
import { useNock } from '../../helpers/nock-lifecycle.js'

// nock must patch http before @actions/http-client loads.
const { runMain, runPost } = await import('../../helpers/github-steps.js')

const TOKEN = 'tok_held_8c7b6a5f4e3d2c1b'
const INPUTS = {
  credential: 'existing',
  'tunnel-token': TOKEN,
  'tunnel-user': 'proj-user-9',
  'tunnel-host': 'tunnel.example.test'
}

// Any request would fail the step: nock refuses every connection and no interceptor is set.
useNock(nock)

const infoLines = (lines: string[]) => lines.filter(line => !line.startsWith('::'))

describe('main with credential: existing', () => {
  it('masks the token first, sends nothing, and publishes it as for cicd', async () => {
    // No base-url, no api-key, no project: none is needed.
    const step = await runInProcess(() => runMain(fakeClock()), INPUTS)

    expect(step.failed).toBe(false)
    expect(step.lines[0]).toBe(`::add-mask::${TOKEN}`)
    expect(linesLeaking(step, TOKEN)).toEqual([])
    expect(step.env).toEqual({
      SVC_TUNNEL_TOKEN: TOKEN,
      SVC_TUNNEL_USER: 'proj-user-9',
      SVC_TUNNEL_HOST: 'tunnel.example.test',
      SVC_TUNNEL_PORT: '2223'
    })
    expect(step.outputs).toEqual({
      token: TOKEN,
      'tunnel-user': 'proj-user-9',
      'client-id': 'proj-user-9',
      'tunnel-host': 'tunnel.example.test',
      'tunnel-port': '2223',
      'expires-at': '',
      'ttl-minutes': '',
      'project-slug': '',
      credential: 'existing'
    })
    // Post learns the user, never the token.
    expect(JSON.parse(step.state.credential)).toEqual({
      kind: 'existing',
      tunnelUser: 'proj-user-9'
    })
    expect(step.summary).toContain(
      'existing (a token you hold; not created or revoked by this step)'
    )
    expect(step.summary).not.toContain(TOKEN)
    expect(infoLines(step.lines)).toEqual([
      'Using the tunnel token of user proj-user-9 from input tunnel-token; no request is sent to the credential service.',
      'Using tunnel user proj-user-9 for tunnel.example.test:2223. Exported SVC_TUNNEL_TOKEN, _USER, _HOST and _PORT.'
    ])
  })

  it('uses tunnel-port and env-prefix', async () => {
    const step = await runInProcess(() => runMain(fakeClock()), {
      ...INPUTS,
      'tunnel-port': '2022',
      'env-prefix': 'ACME'
    })
    expect(step.env.ACME_TUNNEL_PORT).toBe('2022')
    expect(step.env.ACME_TUNNEL_TOKEN).toBe(TOKEN)
  })

  it.each([
    [
      'tunnel-token',
      { 'tunnel-token': '' },
      /^Input tunnel-token is empty, and credential is "existing"/
    ],
    [
      'tunnel-user',
      { 'tunnel-user': '' },
      /^Input tunnel-user is empty, and credential is "existing"/
    ],
    [
      'tunnel-host',
      { 'tunnel-host': '' },
      /^Input tunnel-host is empty, and credential is "existing"/
    ]
  ])('fails without %s, naming it, and publishes nothing', async (_name, override, message) => {
    const step = await runInProcess(() => runMain(fakeClock()), { ...INPUTS, ...override })
    expect(step.failed).toBe(true)
    expect(step.errors).toEqual([expect.stringMatching(message)])
    expect(step.env).toEqual({})
    expect(step.outputs).toEqual({})
    expect(step.state.credential).toBeUndefined()
  })

  it('refuses a token with a line break without showing it', async () => {
    const injected = `${TOKEN}\nEVIL=1`
    const step = await runInProcess(() => runMain(fakeClock()), {
      ...INPUTS,
      'tunnel-token': injected
    })
    expect(step.failed).toBe(true)
    expect(step.errors).toEqual([
      'Input tunnel-token holds a line break (U+000A): check that the secret holds the value alone, on one line, with nothing pasted around it.'
    ])
    expect(step.env).toEqual({})
    expect(
      step.lines.filter(line => line.includes('tok_held') && !line.startsWith('::add-mask::'))
    ).toEqual([])
  })
})

describe('post with credential: existing', () => {
  it('revokes nothing, sends nothing, and says so', async () => {
    const main = await runInProcess(() => runMain(fakeClock()), INPUTS)
    const post = await runInProcess(() => runPost(fakeClock()), INPUTS, {
      state: { ...main.state }
    })
    expect(post.failed).toBe(false)
    expect(post.warnings).toEqual([])
    expect(infoLines(post.lines)).toEqual([
      'Nothing to revoke: the tunnel token of user proj-user-9 came from input tunnel-token (credential: existing), so this step did not create it and leaves it valid.'
    ])
    expect(linesLeaking(post, TOKEN)).toEqual([])
  })
})
