/**
 * `share: use` through the in-memory host, against the local credential service: a job opens the
 * setup job's shared-credential output and hands over what a provisioning step would, and post
 * leaves the credential to the run. Each refusal exports nothing and sends no request.
 */
import { useLocalService } from '../../helpers/core-step.js'
import {
  linesLeaking,
  provisionWith,
  revokeWith,
  type CoreStep
} from '../../helpers/memory-step.js'
import { RUN_SCOPE } from '../../helpers/share-scope.js'

const { options, service } = useLocalService('share-use-')

const CREATE = { share: 'create', 'ttl-minutes': '30' }
let setup: CoreStep

beforeAll(async () => {
  setup = await provisionWith(options(CREATE), { shareScope: RUN_SCOPE })
  expect(setup.errors).toEqual([])
})

const blob = () => setup.outputs['shared-credential']
const useOptions = (extra: Record<string, string> = {}) =>
  options({ share: 'use', 'shared-credential': blob(), ...extra })
const use = (extra: Record<string, string> = {}, more: Parameters<typeof provisionWith>[1] = {}) =>
  provisionWith(useOptions(extra), { shareScope: RUN_SCOPE, ...more })
const statusOf = (user: string) =>
  service()
    .tokens()
    .find(token => token.tunnel_user === user)?.status

describe('share: use', () => {
  it('hands over exactly what the provisioning step did, with the token masked before any line', async () => {
    const requests = service().requests().length
    const step = await use()
    expect(step.errors).toEqual([])
    // Nothing provisioned, nothing revoked: the credential was opened, not asked for. Without
    // expose, the service is asked only whether the token is still active.
    expect(
      service()
        .requests()
        .slice(requests)
        .map(({ method, path }) => `${method} ${path}`)
    ).toEqual(['GET /functions/v1/user-tokens-list'])
    expect(step.env).toEqual(setup.env)
    const { 'shared-credential': _blob, ...provisioned } = setup.outputs
    expect(step.outputs).toEqual(provisioned)
    expect(step.summaries.map(table => table.rows.map(([field]) => field))).toEqual(
      setup.summaries.map(table => table.rows.map(([field]) => field))
    )
    const token = setup.outputs.token
    const firstLine = step.events.findIndex(event => /^(info|notice|warning) /.test(event))
    expect(step.events.indexOf(`mask ${token}`)).toBeGreaterThanOrEqual(0)
    expect(step.events.indexOf(`mask ${token}`)).toBeLessThan(firstLine)
    expect(linesLeaking(step, token)).toEqual([])
    expect(step.infos.at(-1)).toBe(
      `Using the shared credential of tunnel user ${setup.outputs['tunnel-user']} for ${setup.outputs['tunnel-host']}:${setup.outputs['tunnel-port']}, valid until ${setup.outputs['expires-at']}. Exported SVC_TUNNEL_TOKEN, _USER, _HOST and _PORT.`
    )
  })

  it('saves a record post leaves alone: the credential stays for the run', async () => {
    const step = await use()
    const user = setup.outputs['tunnel-user']
    expect(JSON.parse(step.saved.credential)).toMatchObject({ tunnelUser: user, shared: true })
    const after = await revokeWith(useOptions(), step.saved, { shareScope: RUN_SCOPE })
    expect(after.outcome.credential).toEqual({ status: 'kept' })
    expect(after.infos[0]).toMatch(
      new RegExp(`^Not revoking tunnel user ${user}: it is the run's shared credential`)
    )
    expect(statusOf(user)).toBe('active')
  })
})

describe('share: use without expose asks the service whether the token is still active', () => {
  it('refuses one the service no longer lists as active (the final job of an earlier attempt revoked it)', async () => {
    const other = await provisionWith(options(CREATE), { shareScope: RUN_SCOPE })
    const user = other.outputs['tunnel-user']
    const revoked = await provisionWith(
      options({ share: 'revoke', 'shared-credential': other.outputs['shared-credential'] }),
      { shareScope: RUN_SCOPE }
    )
    expect(revoked.errors).toEqual([])
    expect(statusOf(user)).not.toBe('active')
    const step = await provisionWith(
      options({ share: 'use', 'shared-credential': other.outputs['shared-credential'] }),
      { shareScope: RUN_SCOPE }
    )
    expect(step.errors).toEqual([
      `The service no longer lists the token of tunnel user ${user} as active: the shared credential was revoked (the final job of an earlier attempt may have revoked it): re-run all jobs, so that the setup job shares a new credential. Nothing was exported.`
    ])
    expect([step.env, step.outputs, step.summaries]).toEqual([{}, {}, []])
    expect(step.saved.credential ?? '').toBe('')
    expect(linesLeaking(step, other.outputs.token)).toEqual([])
  })

  it('uses it, saying so, when the service cannot tell', async () => {
    service().injectFault({ kind: '500', endpoint: 'user-tokens-list' })
    try {
      const step = await use()
      expect(step.errors).toEqual([])
      expect(step.env).toEqual(setup.env)
      expect(step.infos).toContainEqual(
        expect.stringMatching(
          /^Could not ask the service whether the shared credential is still active \(user-tokens-list: .+\); using it as the setup job shared it\.$/
        )
      )
    } finally {
      service().resetFaults()
    }
  })
})

describe('share: use refuses, exporting nothing and sending nothing', () => {
  const refused = async (
    extra: Record<string, string>,
    more: Parameters<typeof provisionWith>[1] = {}
  ) => {
    const requests = service().requests().length
    const step = await use(extra, more)
    expect(service().requests()).toHaveLength(requests)
    expect([step.env, step.outputs, step.summaries]).toEqual([{}, {}, []])
    expect(step.saved.credential ?? '').toBe('')
    expect(linesLeaking(step, setup.outputs.token)).toEqual([])
    expect(step.errors).toHaveLength(1)
    return step.errors[0]
  }

  it('a tampered blob', async () => {
    const parts = blob().split('.')
    const body = Buffer.from(parts[4], 'base64url')
    body[0] ^= 1
    parts[4] = body.toString('base64url')
    expect(await refused({ 'shared-credential': parts.join('.') })).toMatch(
      /^The shared credential does not open with this API key: it was changed after it was sealed, or sealed with another API key\./
    )
  })

  it('a blob sealed with another API key', async () => {
    const other = `sk_${'f'.repeat(64)}`
    expect(await refused({ 'api-key': other })).toMatch(
      /^The shared credential does not open with this API key/
    )
  })

  it('a blob from another run', async () => {
    expect(await refused({}, { shareScope: { ...RUN_SCOPE, runId: '9002' } })).toBe(
      "The shared credential was sealed for another run, not run 9002 of octo/web-shop. Each run shares its own credential: use the shared-credential output of this run's setup job."
    )
  })

  it('a blob from another repository', async () => {
    expect(await refused({}, { shareScope: { ...RUN_SCOPE, repository: 'octo/fork' } })).toMatch(
      /^The shared credential was sealed for another repository, not octo\/fork\./
    )
  })

  it('a blob for another project', async () => {
    expect(await refused({ project: 'other-shop' })).toMatch(
      /^The shared credential was sealed for another project, not "other-shop"/
    )
  })

  it('a credential that has expired', async () => {
    expect(await refused({}, { now: '2099-01-01T00:00:00Z' })).toBe(
      `The shared credential expired at ${setup.outputs['expires-at']}: the run outlived input ttl-minutes. Re-run all jobs with a longer input ttl-minutes in the setup job.`
    )
  })

  it('a credential from another credential service than base-url', async () => {
    const other = 'http://127.0.0.1:9/functions/v1'
    expect(await refused({ 'base-url': other })).toBe(
      `The shared credential comes from the credential service at ${service().baseUrl}, but input base-url is ${other}. The API key goes only to input base-url: set the same base-url in every job of the run.`
    )
  })

  it('an empty shared-credential', async () => {
    expect(await refused({ 'shared-credential': '' })).toBe(
      'Input share is use, but input shared-credential is empty, so there is nothing to open: the setup job shared nothing. ' +
        "Check that this job has the setup job in its needs and that input shared-credential gets that job's shared-credential output: " +
        "on GitHub Actions ${{ needs.<setup job>.outputs.shared-credential }}, on GitLab CI the setup job's dotenv report (shared.env), which sets SVC_SHARED_CREDENTIAL in every job that needs it."
    )
  })

  it('no API key', async () => {
    expect(await refused({ 'api-key': '' })).toBe(
      'Input share is use, which needs input api-key: the shared credential opens only with the API key it was sealed with. Pass the same secret as the setup job.'
    )
  })

  it('a value that is not a sealed credential', async () => {
    expect(await refused({ 'shared-credential': 'tok_plain' })).toBe(
      "The shared credential is not one this tool sealed: pass the setup job's shared-credential output unchanged."
    )
  })
})

describe('credential auto without an API key, as in a pull request from a fork', () => {
  it('uses a free credential of its own, with a notice', async () => {
    const step = await use({ credential: 'auto', 'api-key': '' })
    expect(step.errors).toEqual([])
    expect(step.notices[0]).toMatch(/^Not sharing: input api-key is empty/)
    expect(step.outputs.credential).toBe('free')
  })
})
