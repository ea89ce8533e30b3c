/**
 * `share: revoke` through the in-memory host, against the local credential service: the run's
 * final job opens the setup job's shared-credential output and revokes it once; gone already,
 * expired or never shared is success. It exports nothing, and leaves post nothing to do.
 */
import { useLocalService } from '../../helpers/core-step.js'
import { linesLeaking, provisionWith, revokeWith } from '../../helpers/memory-step.js'
import { RUN_SCOPE } from '../../helpers/share-scope.js'

const { options, service } = useLocalService('share-revoke-')

const CREATE = { share: 'create', 'ttl-minutes': '30' }
const revokeRequests = () =>
  service()
    .requests()
    .filter(request => request.path.endsWith('/revoke-token'))
const statusOf = (user: string) =>
  service()
    .tokens()
    .find(token => token.tunnel_user === user)?.status

async function shared() {
  const setup = await provisionWith(options(CREATE), { shareScope: RUN_SCOPE })
  expect(setup.errors).toEqual([])
  return setup
}
const final = (
  blob: string,
  extra: Record<string, string> = {},
  more: Parameters<typeof provisionWith>[1] = {}
) =>
  provisionWith(options({ share: 'revoke', 'shared-credential': blob, ...extra }), {
    shareScope: RUN_SCOPE,
    ...more
  })

describe('share: revoke', () => {
  it('revokes the run credential once, exports nothing, and leaves post nothing', async () => {
    const setup = await shared()
    const user = setup.outputs['tunnel-user']
    const before = revokeRequests().length
    const step = await final(setup.outputs['shared-credential'])
    expect(step.errors).toEqual([])
    expect(
      revokeRequests()
        .slice(before)
        .map(request => request.body)
    ).toEqual([{ tunnel_user: user }])
    expect(statusOf(user)).toBe('revoked')
    expect(step.infos).toEqual([`Revoked the run's shared credential (tunnel user ${user}).`])
    expect(step.events).not.toContain('hand-over')
    expect([step.env, step.outputs, step.saved]).toEqual([{}, {}, {}])
    expect(step.masks).toContain(setup.outputs.token)
    expect(linesLeaking(step, setup.outputs.token)).toEqual([])
    const after = await revokeWith(options({ share: 'revoke' }), step.saved, {
      shareScope: RUN_SCOPE
    })
    expect(after.outcome.credential).toEqual({ status: 'nothing' })
    expect(revokeRequests()).toHaveLength(before + 1)
  })

  it('takes a credential revoked already (404) as done', async () => {
    const setup = await shared()
    const user = setup.outputs['tunnel-user']
    expect((await final(setup.outputs['shared-credential'])).errors).toEqual([])
    const again = await final(setup.outputs['shared-credential'])
    expect(again.errors).toEqual([])
    expect(again.infos).toEqual([
      `The run's shared credential (tunnel user ${user}) was already revoked or has expired (404); nothing left to do.`
    ])
  })

  it('still sends the revoke for an expired credential, and takes its failure as information', async () => {
    const setup = await shared()
    const user = setup.outputs['tunnel-user']
    service().injectFault({ kind: '500', endpoint: 'revoke-token' })
    const before = revokeRequests().length
    const step = await final(
      setup.outputs['shared-credential'],
      { 'max-attempts': '1' },
      { now: '2099-01-01T00:00:00Z' }
    )
    expect(step.errors).toEqual([])
    expect(revokeRequests()).toHaveLength(before + 1)
    expect(step.infos.at(-1)).toMatch(
      new RegExp(
        `^Could not revoke the run's shared credential \\(tunnel user ${user}\\): .* It expired at ${setup.outputs['expires-at']}, so it is no longer valid anyway\\.$`
      )
    )
  })

  it('fails when a live credential could not be revoked', async () => {
    const setup = await shared()
    const user = setup.outputs['tunnel-user']
    service().injectFault({ kind: '500', endpoint: 'revoke-token' })
    const step = await final(setup.outputs['shared-credential'], { 'max-attempts': '1' })
    expect(step.errors).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Could not revoke the run's shared credential \\(tunnel user ${user}\\): .* It stays valid until ${setup.outputs['expires-at']}; run this job again to retry\\.$`
        )
      )
    ])
    expect(statusOf(user)).toBe('active')
  })

  it('refuses a blob of another run, and revokes nothing', async () => {
    const setup = await shared()
    const before = revokeRequests().length
    const step = await final(
      setup.outputs['shared-credential'],
      {},
      {
        shareScope: { ...RUN_SCOPE, runId: '77' }
      }
    )
    expect(step.errors).toEqual([
      expect.stringMatching(/^The shared credential was sealed for another run/)
    ])
    expect(revokeRequests()).toHaveLength(before)
    expect(statusOf(setup.outputs['tunnel-user'])).toBe('active')
  })

  it('succeeds with a notice, sending nothing, when the setup job shared nothing', async () => {
    const requests = service().requests().length
    const step = await final('')
    expect(step.errors).toEqual([])
    expect(step.notices).toEqual([
      'Nothing to revoke: input shared-credential is empty, so the setup job shared nothing (it failed before it shared a credential, or did not run).'
    ])
    expect(service().requests()).toHaveLength(requests)
    expect([step.env, step.outputs, step.saved]).toEqual([{}, {}, {}])
  })

  it('with credential auto and no API key: a notice when there is nothing to revoke', async () => {
    const step = await final('', { credential: 'auto', 'api-key': '' })
    expect(step.errors).toEqual([])
    expect(step.notices).toEqual([
      'Nothing to revoke: input shared-credential is empty, so the setup job shared nothing; input api-key is empty too (as in a pull request from a fork).'
    ])
  })

  it('with credential auto and no API key: an error when there is a credential to revoke', async () => {
    const setup = await shared()
    const step = await final(setup.outputs['shared-credential'], {
      credential: 'auto',
      'api-key': ''
    })
    expect(step.errors).toEqual([
      'Input share is revoke, but input api-key is empty (as in a pull request from a fork), and sharing needs the API key to open input shared-credential. Pass the API key to this job.'
    ])
    expect(statusOf(setup.outputs['tunnel-user'])).toBe('active')
  })
})
