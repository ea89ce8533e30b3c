/**
 * `share: create` through the in-memory host, against the local credential service: main seals
 * the credential for the run as the shared-credential output, and post leaves it to the run.
 */
import { useLocalService } from '../../helpers/core-step.js'
import { provisionWith, revokeWith, type CoreStep } from '../../helpers/memory-step.js'
import { RUN_SCOPE as SCOPE } from '../../helpers/share-scope.js'
import { openSealedCredential } from '../../../src/core/share/sealed-credential.js'

const { options, service } = useLocalService('share-create-')

const CREATE = { share: 'create', 'ttl-minutes': '30' }

const main = (extra: Record<string, string> = {}, more: Parameters<typeof provisionWith>[1] = {}) =>
  provisionWith(options({ ...CREATE, ...extra }), { shareScope: SCOPE, ...more })
const post = (state: Record<string, string>, extra: Record<string, string> = {}) =>
  revokeWith(options({ ...CREATE, ...extra }), state, { shareScope: SCOPE })

const provisions = () =>
  service()
    .requests()
    .filter(request => request.path.endsWith('/credential-provision')).length
const statusOf = (user: string) =>
  service()
    .tokens()
    .find(token => token.tunnel_user === user)?.status

function opened(step: CoreStep): Record<string, unknown> {
  return openSealedCredential(step.outputs['shared-credential'], service().seed.provisionKey, {
    system: SCOPE.system,
    repository: SCOPE.repository,
    runId: SCOPE.runId,
    project: service().seed.project
  }) as Record<string, unknown>
}

describe('share: create', () => {
  it('hands over the credential sealed for the run, beside the outputs a provisioning step gives', async () => {
    const before = provisions()
    const step = await main()
    expect(step.errors).toEqual([])
    expect(provisions()).toBe(before + 1)
    const { outputs } = step
    const user = outputs['tunnel-user']
    expect(outputs['shared-credential']).toMatch(/^ptc1\.[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+$/)
    // Nothing in the blob reads without the API key: not the token, in any of its encodings.
    for (const encoding of ['utf8', 'base64', 'base64url', 'hex'] as const) {
      const token = Buffer.from(outputs.token).toString(encoding)
      expect(outputs['shared-credential']).not.toContain(token)
    }
    expect(outputs['shared-credential']).not.toContain(service().seed.provisionKey)
    // The blob holds what the service answered, and the service it came from.
    expect(opened(step)).toMatchObject({
      token: outputs.token,
      tunnel_user: user,
      tunnel_host: outputs['tunnel-host'],
      tunnel_port: Number(outputs['tunnel-port']),
      expires_at: outputs['expires-at'],
      ttl_minutes: 30,
      base_url: service().baseUrl
    })
    // tunnel-user and expires-at stay plain outputs; the variables are those of any provisioning.
    expect(outputs['expires-at']).not.toBe('')
    expect(Object.keys(step.env).sort()).toEqual([
      'SVC_TUNNEL_HOST',
      'SVC_TUNNEL_PORT',
      'SVC_TUNNEL_TOKEN',
      'SVC_TUNNEL_USER'
    ])
    expect(JSON.parse(step.saved.credential)).toEqual({
      kind: 'cicd',
      tunnelUser: user,
      baseUrl: service().baseUrl,
      expiresAt: outputs['expires-at'],
      shared: true
    })
    expect(step.infos.at(-1)).toMatch(/Shared with the other jobs of this run/)
    expect(statusOf(user)).toBe('active')
  })

  it("post leaves the run's credential alive, and says so", async () => {
    const step = await main()
    const user = step.outputs['tunnel-user']
    const revokes = service()
      .requests()
      .filter(request => request.path.endsWith('/revoke-token')).length
    const after = await post(step.saved)
    expect(after.outcome.credential).toEqual({ status: 'kept' })
    expect(after.infos).toContain(
      `Not revoking tunnel user ${user}: it is the run's shared credential, which the run's final job revokes (input share revoke). It expires by itself at ${step.outputs['expires-at']}.`
    )
    expect(
      service()
        .requests()
        .filter(request => request.path.endsWith('/revoke-token'))
    ).toHaveLength(revokes)
    expect(statusOf(user)).toBe('active')
  })

  it('post revokes a record marked shared when its own share option is off', async () => {
    // State is not trusted to skip a revoke: on the action, post's options are main's own.
    const step = await main()
    const user = step.outputs['tunnel-user']
    const after = await post(step.saved, { share: 'off' })
    expect(after.outcome.credential).toEqual({ status: 'revoked' })
    expect(statusOf(user)).toBe('revoked')
  })

  it('refuses and revokes an answer without an expiry, and shares nothing', async () => {
    service().injectFault({
      kind: 'missing',
      fields: ['expires_at'],
      endpoint: 'credential-provision'
    })
    const step = await main()
    expect(step.errors).toEqual([
      expect.stringMatching(
        /^The service issued a credential without an expiry, although input ttl-minutes was set; a shared credential lives for the whole run, so it must expire\. It was revoked, and nothing was shared\./
      )
    ])
    expect([step.env, step.outputs, step.summaries]).toEqual([{}, {}, []])
    const user = service().tokens().at(-1)!.tunnel_user
    expect(statusOf(user)).toBe('revoked')
    expect(step.saved.credential).toBe('')
  })

  it('leaves to post a credential it could not hand over nor revoke at once, and post revokes it', async () => {
    // The hand-over fails, then so does main's own revoke: the record is not marked shared.
    service().injectFault({ kind: '500', endpoint: 'revoke-token' })
    const step = await main({}, { handOverError: new Error('EACCES: permission denied') })
    expect(step.errors).toEqual([expect.stringMatching(/EACCES/)])
    expect([step.env, step.outputs]).toEqual([{}, {}])
    const user = service().tokens().at(-1)!.tunnel_user
    expect(statusOf(user)).toBe('active')
    expect(JSON.parse(step.saved.credential)).not.toHaveProperty('shared')
    const after = await post(step.saved)
    expect(after.outcome.credential).toEqual({ status: 'revoked' })
    expect(statusOf(user)).toBe('revoked')
  })
})

describe('share refusals, before any request', () => {
  const refused = async (
    extra: Record<string, string>,
    more: Parameters<typeof provisionWith>[1] = { shareScope: SCOPE }
  ) => {
    const before = service().requests().length
    const step = await provisionWith(options(extra), more)
    expect(service().requests()).toHaveLength(before)
    expect([step.env, step.outputs, step.saved]).toEqual([{}, {}, {}])
    return step.errors
  }

  it.each([
    ['free', 'a free credential has no API key to seal it with'],
    ['ssh-key', 'sharing it would put a private key in the output'],
    ['existing', 'an existing credential is already yours to pass on']
  ])('refuses to share credential %s', async (kind, why) => {
    expect(await refused({ ...CREATE, credential: kind, 'tunnel-token': 'tok_given' })).toEqual([
      `Input share is create, which works only with input credential cicd: ${why}. Set input share to off.`
    ])
  })

  it('refuses where the host names no run every job sees', async () => {
    expect(await refused(CREATE, {})).toEqual([
      "Input share is create, but sharing works on GitHub Actions and GitLab CI, where every job sees the run's identity; set input share to off."
    ])
  })

  it('refuses create without ttl-minutes', async () => {
    expect(await refused({ share: 'create' })).toEqual([
      "Input share is create, which needs input ttl-minutes: a shared credential lives for the run, so it must expire. Set it to the run's longest duration in minutes."
    ])
  })

  it('refuses a share value it does not know, naming the values', async () => {
    expect(await refused({ share: 'yes' })).toEqual([
      'Input share is "yes": expected one of off, create, use or revoke.'
    ])
  })

  it('falls back to a free credential per job, with a notice, for auto without an API key', async () => {
    const step = await provisionWith(options({ ...CREATE, credential: 'auto', 'api-key': '' }), {
      shareScope: SCOPE
    })
    expect(step.errors).toEqual([])
    expect(step.notices[0]).toBe(
      'Not sharing: input api-key is empty (as in a pull request from a fork), and sharing needs the API key. Input credential is auto, so this job uses its own free credential.'
    )
    expect(step.outputs.credential).toBe('free')
    expect(step.outputs).not.toHaveProperty('shared-credential')
  })
})

describe('share: off', () => {
  it('hands over no shared-credential output, and post revokes as before', async () => {
    const step = await provisionWith(options(), { shareScope: SCOPE })
    expect(step.errors).toEqual([])
    expect(step.outputs).not.toHaveProperty('shared-credential')
    expect(JSON.parse(step.saved.credential)).not.toHaveProperty('shared')
    const after = await revokeWith(options(), step.saved, { shareScope: SCOPE })
    expect(after.outcome.credential).toEqual({ status: 'revoked' })
  })
})

describe('shared-credential where it is not read', () => {
  it('warns under share off, and provisions as before', async () => {
    const step = await provisionWith(options({ 'shared-credential': 'ptc1.x.y.z.w' }), {
      shareScope: SCOPE
    })
    expect(step.errors).toEqual([])
    expect(step.warnings).toEqual([
      'Input shared-credential is set, but input share is off, so it is ignored and this job provisions a credential of its own. To open it, set input share to use.'
    ])
    expect(step.outputs).not.toHaveProperty('shared-credential')
  })

  it('warns under share create, and shares a credential of its own', async () => {
    const step = await main({ 'shared-credential': 'ptc1.x.y.z.w' })
    expect(step.errors).toEqual([])
    expect(step.warnings).toEqual([
      "Input shared-credential is ignored: input share create provisions the run's credential rather than open one."
    ])
    expect(step.outputs['shared-credential']).toMatch(/^ptc1\./)
  })
})
