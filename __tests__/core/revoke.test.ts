/**
 * What post does, through the in-memory host: it revokes what main saved, and returns what
 * happened; a failure weighs as a warning unless fail-on-revoke-error asks for a failed step. The
 * GitHub host's mapping of these outcomes is tested in __tests__/github/steps.test.ts.
 */
import { useLocalService } from '../helpers/core-step.js'
import { provision } from '../../src/core/provision.js'
import { revoke } from '../../src/core/revoke.js'
import type { RevokeOutcome } from '../../src/core/outcome.js'
import { logLines, memoryHost, type MemoryHost } from '../helpers/memory-host.js'

const { scratch, options, service: localService } = useLocalService('revoke-test-')

async function post(
  state: Record<string, string>,
  extra: Record<string, string> = {},
  now?: string
): Promise<MemoryHost & { outcome: RevokeOutcome }> {
  const host = memoryHost({ options: options(extra), state, tempRoot: scratch(), now })
  return Object.assign(host, { outcome: await revoke(host) })
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
  expect(host.outcome).toEqual({
    tunnel: { status: 'none' },
    credential: { status: 'revoked' },
    untidied: []
  })
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
  expect(host.outcome.credential).toEqual({ status: 'nothing' })
})

it('returns a failure that weighs as a warning when the revoke fails', async () => {
  const host = await post(savedCredential('2099-01-01T00:00:00Z'), { 'base-url': UNREACHABLE })
  expect(host.outcome.credential).toEqual({
    status: 'failed',
    report: 'warning',
    message: expect.stringMatching(
      /^Could not revoke the tunnel token of user zz9zz: .* It expires by itself at 2099-01-01T00:00:00Z\.$/
    )
  })
})

it('asks to fail the step instead when fail-on-revoke-error asks', async () => {
  const host = await post(savedCredential('2099-01-01T00:00:00Z'), {
    'base-url': UNREACHABLE,
    'fail-on-revoke-error': 'true'
  })
  expect(logLines(host, 'warning')).toEqual([])
  expect(host.outcome.credential).toMatchObject({ status: 'failed', report: 'fail-step' })
})

it('only informs when the credential should already have expired by the host clock', async () => {
  const host = await post(
    savedCredential('2026-11-23T09:00:00Z'),
    { 'base-url': UNREACHABLE, 'fail-on-revoke-error': 'true' },
    '2026-11-23T10:00:00Z'
  )
  expect(logLines(host, 'warning')).toEqual([])
  // Information only, but still unfinished: the service, not this clock, says it is gone.
  expect(host.outcome.credential).toEqual({
    status: 'failed',
    report: 'info',
    message: expect.stringMatching(/It should already have expired at 2026-11-23T09:00:00Z\.$/)
  })
})

it('names the base-url option as the host labels it when the saved service differs', async () => {
  const host = await post(
    savedCredential('2099-01-01T00:00:00Z', 'http://elsewhere.example.test/functions/v1')
  )
  expect(logLines(host, 'warning')[0]).toBe(
    `The saved state names the credential service at http://elsewhere.example.test/functions/v1, but --base-url is ${localService().baseUrl}. ` +
      'The API key goes only to --base-url, so the revoke is sent there. Something other than this tool may have written the state.'
  )
  // A warning, but nothing left unfinished: the revoke itself was answered.
  expect(host.outcome.credential).toEqual({ status: 'revoked' })
})
