/** credential: free on its own: what it reads, publishes and saves, and why it revokes nothing. */
import { freeKind } from '../../../src/core/kinds/free.js'
import { readCommonSettings } from '../../../src/core/settings/common.js'
import { fakeService, obtainContext, revokeContext } from '../../helpers/kind-context.js'
import { optionsFrom } from '../../helpers/options.js'

const ANSWER = {
  tunnel_client_id: 'free-1',
  tunnel_client_secret: 's3cret-free-token',
  tunnel_host: 'tunnel.example.test',
  expires_at: '2026-11-24T10:05:00Z'
}

function settingsFrom(values: Record<string, string>, auto = false) {
  const options = optionsFrom(values, name => `--${name}`)
  return freeKind.readSettings(options, readCommonSettings(options), { auto })
}

describe('free settings', () => {
  it('needs only base-url, and remembers whether auto chose it', () => {
    expect(settingsFrom({ 'base-url': 'https://svc.example.test' }, true)).toMatchObject({
      kind: 'free',
      fellBackToFree: true,
      baseUrl: 'https://svc.example.test/functions/v1'
    })
  })

  it('names base-url as the host labels it', () => {
    expect(() => settingsFrom({})).toThrow(/^--base-url is empty/)
  })
})

describe('free obtain', () => {
  it('asks for a free credential, masks its secret, saves the user and publishes it', async () => {
    let calls = 0
    const service = fakeService({ createFreeCredential: async () => (calls++, ANSWER) })
    const { context, recorded } = obtainContext(service)
    const obtained = await freeKind.obtain(
      settingsFrom({ 'base-url': 'https://svc.example.test' }),
      context
    )

    expect(calls).toBe(1)
    expect(recorded.masked).toEqual(['s3cret-free-token'])
    expect(recorded.lines).toEqual([
      'Requesting a free 5-minute tunnel credential from https://svc.example.test/functions/v1',
      'notice: The service sent no tunnel_port; using the default port 2223.'
    ])
    expect(recorded.saves).toEqual([
      {
        kind: 'free',
        tunnelUser: 'free-1',
        baseUrl: 'https://svc.example.test/functions/v1',
        expiresAt: '2026-11-24T10:05:00Z'
      }
    ])
    expect(recorded.published).toEqual([obtained])
    expect(obtained.outputs).toMatchObject({
      credential: 'free',
      token: 's3cret-free-token',
      'tunnel-user': 'free-1',
      'client-id': 'free-1',
      'tunnel-port': '2223'
    })
    expect(obtained.summary).toContainEqual(['Credential', 'free (5 minutes, not revocable)'])
    expect(obtained.login).toMatchObject({
      kind: 'free',
      expiresAt: '2026-11-24T10:05:00Z',
      lifetimeNote:
        'The credential is free, so the tunnel ends when the credential does: after 5 minutes (limits.max_uptime_minutes), at 2026-11-24T10:05:00Z.'
    })
  })

  it('warns, naming the API key option, when auto fell back to it', async () => {
    const service = fakeService({ createFreeCredential: async () => ANSWER })
    const { context, recorded } = obtainContext(service)
    await freeKind.obtain(settingsFrom({ 'base-url': 'https://svc.example.test' }, true), context)
    expect(recorded.lines[0]).toBe(
      'warning: --api-key is empty, so --credential auto falls back to a free 5-minute credential. ' +
        'This is expected where the CI system withholds secrets (on GitHub, pull requests from forks and Dependabot runs).'
    )
  })

  it('publishes nothing from an answer that fails validation', async () => {
    const service = fakeService({
      createFreeCredential: async () => ({ ...ANSWER, tunnel_host: undefined })
    })
    const { context, recorded } = obtainContext(service)
    await expect(
      freeKind.obtain(settingsFrom({ 'base-url': 'https://svc.example.test' }), context)
    ).rejects.toThrow('tunnel_host is missing')
    expect(recorded.published).toEqual([])
    expect(recorded.saves).toEqual([])
  })
})

describe('free saved state and revoke', () => {
  it('reads back the user as a free credential', () => {
    expect(freeKind.readSaved({ kind: 'cicd', tunnelUser: 'free-1', rejected: true })).toEqual({
      kind: 'free',
      tunnelUser: 'free-1',
      rejected: true
    })
  })

  it('sends nothing and says the credential ends by itself', async () => {
    const { context, lines } = revokeContext(fakeService({}), { kind: 'free' })
    await freeKind.revoke(
      { kind: 'free', tunnelUser: 'free-1', expiresAt: '2026-11-24T10:05:00Z' },
      context
    )
    expect(lines).toEqual([
      'Nothing to revoke: free credentials cannot be revoked. It expires by itself at 2026-11-24T10:05:00Z.'
    ])
  })

  it('names its credential for post messages', () => {
    expect(freeKind.describe({ kind: 'free', tunnelUser: 'free-1' })).toBe(
      'the free credential of user free-1'
    )
  })
})
