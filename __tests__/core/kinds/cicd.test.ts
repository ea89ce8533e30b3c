/** credential: cicd on its own: what it reads, publishes, saves and revokes, with small fakes. */
import { cicdKind } from '../../../src/core/kinds/cicd.js'
import { readCommonSettings } from '../../../src/core/settings/common.js'
import { fakeService, obtainContext, revokeContext } from '../../helpers/kind-context.js'
import { optionsFrom } from '../../helpers/options.js'

const KEY = `sk_${'ab'.repeat(32)}`
const OPTIONS = {
  'api-key': KEY,
  project: 'web-shop',
  environment: 'staging',
  'base-url': 'https://svc.example.test'
}
const ANSWER = {
  token: 'tok_5eed5eed5eed5eed',
  tunnel_user: 'ab12c',
  client_id: 'client-1',
  tunnel_host: 'tunnel.example.test',
  tunnel_port: 2223,
  expires_at: '2026-11-24T11:00:00Z',
  ttl_minutes: 60
}

function settingsFrom(values: Record<string, string>, label?: (name: string) => string) {
  const options = optionsFrom(values, label)
  return cicdKind.readSettings(options, readCommonSettings(options), { auto: false })
}

describe('cicd settings', () => {
  it('reads the project, environment, ttl and base-url', () => {
    expect(settingsFrom({ ...OPTIONS, 'ttl-minutes': '45' })).toMatchObject({
      kind: 'cicd',
      apiKey: KEY,
      project: 'web-shop',
      environment: 'staging',
      ttlMinutes: 45,
      baseUrl: 'https://svc.example.test/functions/v1'
    })
  })

  it.each([
    [{ project: '' }, '--project is empty: set it to the project slug to provision for.'],
    [{ 'api-key': '' }, /^--api-key is empty, and --credential is "cicd", which needs it\./],
    [{ 'api-key': 'sk_short' }, /^--api-key is not an API key/],
    [{ project: 'a##[b' }, /^--project is ".*": it holds "#" followed by "#\["/]
  ])('refuses %j, naming the option as the host labels it', (override, message) => {
    expect(() => settingsFrom({ ...OPTIONS, ...override }, name => `--${name}`)).toThrow(message)
  })
})

describe('cicd obtain', () => {
  const settings = () => settingsFrom(OPTIONS)

  it('provisions, masks the token, saves the user for post, and publishes the credential', async () => {
    const requests: unknown[] = []
    const service = fakeService({
      provisionCredential: async (request: unknown) => (requests.push(request), ANSWER)
    })
    const { context, recorded } = obtainContext(service)
    await cicdKind.obtain(settings(), context)

    expect(requests).toEqual([expect.objectContaining({ apiKey: KEY, project: 'web-shop' })])
    expect(recorded.masked).toEqual(['tok_5eed5eed5eed5eed'])
    expect(recorded.lines).toEqual([
      'Provisioning tunnel credentials for project "web-shop" (staging) from https://svc.example.test/functions/v1'
    ])
    expect(recorded.saves.at(-1)).toEqual({
      kind: 'cicd',
      tunnelUser: 'ab12c',
      baseUrl: 'https://svc.example.test/functions/v1',
      expiresAt: '2026-11-24T11:00:00Z'
    })
    const [published] = recorded.published
    expect(published.env).toEqual({
      TUNNEL_TOKEN: 'tok_5eed5eed5eed5eed',
      TUNNEL_USER: 'ab12c',
      TUNNEL_HOST: 'tunnel.example.test',
      TUNNEL_PORT: '2223'
    })
    expect(published.outputs).toMatchObject({ credential: 'cicd', 'project-slug': 'web-shop' })
    expect(published.summary).toContainEqual(['Credential', 'cicd'])
    expect(published.announcement).toBe(
      'Provisioned tunnel user ab12c for tunnel.example.test:2223, valid until 2026-11-24T11:00:00Z.'
    )
  })

  it('revokes at once a credential it cannot use, and clears what it saved', async () => {
    const revoked: string[] = []
    const service = fakeService({
      provisionCredential: async () => ({ ...ANSWER, tunnel_host: 'not a host' }),
      revokeCredential: async (_key: string, user: string) => (revoked.push(user), 'revoked')
    })
    const { context, recorded } = obtainContext(service)
    await expect(cicdKind.obtain(settings(), context)).rejects.toThrow(
      'tunnel_host is not a bare hostname or IP address'
    )
    expect(revoked).toEqual(['ab12c'])
    expect(recorded.published).toEqual([])
    // Saved as rejected before anything else, so post revokes it even with revoke: false.
    expect(recorded.saves[0]).toMatchObject({ kind: 'cicd', tunnelUser: 'ab12c', rejected: true })
    expect(recorded.saves.at(-1)).toBeNull()
    expect(recorded.lines).toContain(
      'Revoked the credential of tunnel user ab12c, which this step could not use.'
    )
  })

  it('leaves the saved credential for post when that revoke fails', async () => {
    const service = fakeService({
      provisionCredential: async () => ({ ...ANSWER, tunnel_port: 'x' }),
      revokeCredential: async () => {
        throw new Error('down')
      }
    })
    const { context, recorded } = obtainContext(service)
    await expect(cicdKind.obtain(settings(), context)).rejects.toThrow('tunnel_port')
    expect(recorded.saves).not.toContain(null)
    expect(recorded.lines).toContain(
      'Could not revoke the credential of tunnel user ab12c yet (explained: down); revoking when the job ends tries again.'
    )
  })
})

describe('cicd saved state and revoke', () => {
  it('reads back a clean tunnel user, and nothing else', () => {
    expect(cicdKind.readSaved({ kind: 'free', tunnelUser: 'ab12c', token: 'x' })).toEqual({
      kind: 'cicd',
      tunnelUser: 'ab12c'
    })
    expect(cicdKind.readSaved({ tunnelUser: 'a b' })).toBeUndefined()
  })

  it('revokes by tunnel user and says so', async () => {
    const sent: string[][] = []
    const service = fakeService({
      revokeCredential: async (key: string, user: string) => (sent.push([key, user]), 'revoked')
    })
    const { context, lines } = revokeContext(service)
    await cicdKind.revoke({ kind: 'cicd', tunnelUser: 'ab12c' }, context)
    expect(sent).toEqual([[KEY, 'ab12c']])
    expect(lines).toEqual(['Revoked the tunnel token of user ab12c.'])
  })

  it('says a credential already gone is nothing left to do', async () => {
    const service = fakeService({ revokeCredential: async () => 'already-gone' })
    const { context, lines } = revokeContext(service)
    await cicdKind.revoke({ kind: 'cicd', tunnelUser: 'ab12c' }, context)
    expect(lines).toEqual([
      'The tunnel token of user ab12c was already revoked or has expired (404); nothing left to do.'
    ])
  })

  it('keeps the credential when revoke is off, naming the option and the expiry', async () => {
    const { context, lines } = revokeContext(fakeService({}), { revoke: false })
    await cicdKind.revoke(
      { kind: 'cicd', tunnelUser: 'ab12c', expiresAt: '2026-11-24T11:00:00Z' },
      context
    )
    expect(lines).toEqual([
      'Not revoking tunnel user ab12c: --revoke is false. It expires by itself at 2026-11-24T11:00:00Z.'
    ])
  })

  it('revokes a credential main refused, whatever the revoke option says', async () => {
    const sent: string[] = []
    const service = fakeService({
      revokeCredential: async (_key: string, user: string) => (sent.push(user), 'revoked')
    })
    const { context } = revokeContext(service, { revoke: false })
    await cicdKind.revoke({ kind: 'cicd', tunnelUser: 'ab12c', rejected: true }, context)
    expect(sent).toEqual(['ab12c'])
  })

  it('cannot revoke without the API key, and says which option is empty', async () => {
    const { context } = revokeContext(fakeService({}), { apiKey: '' })
    await expect(cicdKind.revoke({ kind: 'cicd', tunnelUser: 'ab12c' }, context)).rejects.toThrow(
      '--api-key is empty when revoking, so the revoke request cannot be authenticated.'
    )
  })

  it('names its credential for post messages', () => {
    expect(cicdKind.describe({ kind: 'cicd', tunnelUser: 'ab12c' })).toBe(
      'the tunnel token of user ab12c'
    )
  })
})
