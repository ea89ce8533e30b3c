/**
 * What post does, through the in-memory host: it revokes what main saved, and a failure is a
 * warning unless fail-on-revoke-error asks for a failed step. The GitHub host's own tests run
 * the same step as the runner does (__tests__/github/post.test.ts).
 */
import { useLocalService } from '../helpers/core-step.js'
import { provision } from '../../src/core/provision.js'
import { revoke } from '../../src/core/revoke.js'
import { logLines, memoryHost, type MemoryHost } from '../helpers/memory-host.js'

const { scratch, options, service: localService } = useLocalService('revoke-test-')

async function post(
  state: Record<string, string>,
  extra: Record<string, string> = {},
  now?: string
): Promise<MemoryHost> {
  const host = memoryHost({ options: options(extra), state, tempRoot: scratch(), now })
  await revoke(host)
  return host
}

/** A service nobody answers at: every revoke sent there fails. */
const UNREACHABLE = 'http://127.0.0.1:1/functions/v1'

/** Saved as main saves a cicd credential from the service at `baseUrl`. */
const savedCredential = (expiresAt: string, baseUrl = UNREACHABLE) => ({
  credential: JSON.stringify({ kind: 'cicd', tunnelUser: 'zz9zz', expiresAt, baseUrl })
})

it('revokes what main saved, masking the key before anything else', async () => {
  const main = memoryHost({ options: options(), tempRoot: scratch() })
  await provision(main)
  const user = main.outputs['tunnel-user']
  const host = await post(main.saved)
  expect(host.events[0]).toBe(`mask ${localService().seed.provisionKey}`)
  expect(host.failure).toBeUndefined()
  expect(logLines(host, 'warning')).toEqual([])
  expect(logLines(host, 'info')).toEqual([`Revoked the tunnel token of user ${user}.`])
  expect(
    localService()
      .tokens()
      .find(token => token.tunnel_user === user)?.status
  ).toBe('revoked')
})

it('says there is nothing to revoke when main saved nothing', async () => {
  const host = await post({})
  expect(logLines(host, 'info')).toEqual([
    'Nothing to revoke: no credential was provisioned, or it was already revoked.'
  ])
  expect(host.failure).toBeUndefined()
})

it('warns, and does not fail, when the revoke fails', async () => {
  const host = await post(savedCredential('2099-01-01T00:00:00Z'), { 'base-url': UNREACHABLE })
  expect(host.failure).toBeUndefined()
  expect(logLines(host, 'warning')).toEqual([
    expect.stringMatching(
      /^Could not revoke the tunnel token of user zz9zz: .* It expires by itself at 2099-01-01T00:00:00Z\.$/
    )
  ])
})

it('fails the step instead when fail-on-revoke-error asks', async () => {
  const host = await post(savedCredential('2099-01-01T00:00:00Z'), {
    'base-url': UNREACHABLE,
    'fail-on-revoke-error': 'true'
  })
  expect(logLines(host, 'warning')).toEqual([])
  expect(host.failure).toMatch(/^Could not revoke the tunnel token of user zz9zz: /)
})

it('only informs when the credential should already have expired by the host clock', async () => {
  const host = await post(
    savedCredential('2026-11-23T09:00:00Z'),
    { 'base-url': UNREACHABLE, 'fail-on-revoke-error': 'true' },
    '2026-11-23T10:00:00Z'
  )
  expect(host.failure).toBeUndefined()
  expect(logLines(host, 'warning')).toEqual([])
  expect(logLines(host, 'info')).toEqual([
    expect.stringMatching(/It should already have expired at 2026-11-23T09:00:00Z\.$/)
  ])
})

it('names the base-url option as the host labels it when the saved service differs', async () => {
  const host = await post(
    savedCredential('2099-01-01T00:00:00Z', 'http://elsewhere.example.test/functions/v1')
  )
  expect(logLines(host, 'warning')[0]).toBe(
    `The saved state names the credential service at http://elsewhere.example.test/functions/v1, but --base-url is ${localService().baseUrl}. ` +
      'The API key goes only to --base-url, so the revoke is sent there. Something other than this tool may have written the state.'
  )
})
