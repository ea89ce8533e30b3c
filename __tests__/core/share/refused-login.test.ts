/**
 * A refused login under `share: use`: the token's state, asked of the service by tunnel user,
 * turns into one message that names the cause. Against the stand-in for what the service really
 * lists, and nock for the answers the stand-in does not give (403, an unusable list).
 */
import nock from 'nock'
import { useNock } from '../../helpers/nock-lifecycle.js'

// nock must patch http before the client's HTTP library loads.
const { CredentialService } = await import('../../../src/core/service/client.js')
const { startCredentialService } = await import('../../../service/server.js')
const { askTokenStanding, explainRefusedSharedLogin } =
  await import('../../../src/core/share/refused-login.js')

useNock(nock)
const DETAIL =
  'the tunnel server refused the login of user cicd-1 (All configured authentication methods failed)'
const REVOKED =
  'the shared credential was revoked (the final job of an earlier attempt may have revoked it): re-run all jobs'
const github = (name: string) => `input ${name}`

function clientFor(baseUrl: string) {
  return new CredentialService({
    baseUrl,
    maxAttempts: 1,
    timeoutSeconds: 5,
    sleep: async () => undefined,
    random: () => 0.5
  })
}

describe('the token state, from the stand-in', () => {
  let service: Awaited<ReturnType<typeof startCredentialService>>
  beforeAll(async () => {
    nock.enableNetConnect('127.0.0.1')
    service = await startCredentialService({ port: 0 })
  })
  afterAll(async () => {
    await service.close()
    nock.disableNetConnect()
  })

  async function provisioned(): Promise<string> {
    const answer = (await clientFor(service.baseUrl).provisionCredential({
      apiKey: service.seed.provisionKey,
      project: service.seed.project,
      environment: '',
      ttlMinutes: 30
    })) as { tunnel_user: string }
    return answer.tunnel_user
  }

  it('is active for a token the service still lists as active', async () => {
    const user = await provisioned()
    const client = clientFor(service.baseUrl)
    await expect(askTokenStanding(client, service.seed.provisionKey, user)).resolves.toEqual({
      state: 'active'
    })
  })

  it('is gone once the token was revoked', async () => {
    const user = await provisioned()
    const client = clientFor(service.baseUrl)
    await client.revokeCredential(service.seed.provisionKey, user)
    await expect(askTokenStanding(client, service.seed.provisionKey, user)).resolves.toEqual({
      state: 'gone'
    })
  })

  it('is gone once the token expired', async () => {
    const user = await provisioned()
    service.expire(user)
    await expect(
      askTokenStanding(clientFor(service.baseUrl), service.seed.provisionKey, user)
    ).resolves.toEqual({ state: 'gone' })
  })

  it('is gone for a tunnel user the list does not hold', async () => {
    await provisioned()
    await expect(
      askTokenStanding(clientFor(service.baseUrl), service.seed.provisionKey, 'cicd-nobody')
    ).resolves.toEqual({ state: 'gone' })
  })

  it('cannot tell with an API key the service rejects', async () => {
    const user = await provisioned()
    const standing = await askTokenStanding(
      clientFor(service.baseUrl),
      `sk_${'0'.repeat(64)}`,
      user
    )
    expect(standing).toEqual({
      state: 'unknown',
      why: expect.stringMatching(/^user-tokens-list: HTTP 401/)
    })
  })
})

describe('the token state, when the service cannot tell', () => {
  const ORIGIN = 'https://svc.example.test'
  const client = clientFor(`${ORIGIN}/functions/v1`)
  const KEY = `sk_${'ab'.repeat(32)}`

  it('names the scope on a 403', async () => {
    nock(ORIGIN)
      .get('/functions/v1/user-tokens-list')
      .reply(403, { error: 'API key lacks the token:read scope', code: 'FORBIDDEN' })
    await expect(askTokenStanding(client, KEY, 'cicd-1')).resolves.toEqual({
      state: 'unknown',
      why: 'user-tokens-list: HTTP 403 FORBIDDEN: API key lacks the token:read scope'
    })
    nock(ORIGIN).get('/functions/v1/user-tokens-list').reply(403, { code: 'FORBIDDEN' })
    await expect(askTokenStanding(client, KEY, 'cicd-1')).resolves.toEqual({
      state: 'unknown',
      why: 'user-tokens-list: HTTP 403 FORBIDDEN; the API key may lack the token:read scope'
    })
  })

  it('says the answer was unusable, without quoting it', async () => {
    nock(ORIGIN)
      .get('/functions/v1/user-tokens-list')
      .reply(200, { tokens: [{ tunnel_user: 'cicd-1', status: null, note: '::error::x' }] })
    await expect(askTokenStanding(client, KEY, 'cicd-1')).resolves.toEqual({
      state: 'unknown',
      why: 'user-tokens-list: its answer is unusable: entry 1 has no tunnel_user or status text'
    })
  })

  it('takes a service that is down as unknown, not as a thrown error', async () => {
    nock(ORIGIN).get('/functions/v1/user-tokens-list').replyWithError('socket hang up')
    const standing = await askTokenStanding(client, KEY, 'cicd-1')
    expect(standing.state).toBe('unknown')
  })

  it('reads a listed token with another status as gone, only "active" as active', async () => {
    nock(ORIGIN)
      .get('/functions/v1/user-tokens-list')
      .reply(200, {
        tokens: [
          { tunnel_user: 'cicd-1', status: 'suspended' },
          { tunnel_user: 'cicd-2', status: 'active' }
        ]
      })
    await expect(askTokenStanding(client, KEY, 'cicd-1')).resolves.toEqual({ state: 'gone' })
  })
})

describe('the message', () => {
  it('says revoked and re-run all jobs for a token no longer active', () => {
    expect(explainRefusedSharedLogin({ state: 'gone' }, DETAIL, github)).toBe(
      `The tunnel did not start: ${DETAIL}. The service no longer lists the token as active: ${REVOKED}, so that the setup job shares a new credential.`
    )
  })

  it('says one session per credential and names the option as the host does', () => {
    expect(explainRefusedSharedLogin({ state: 'active' }, DETAIL, github)).toBe(
      `The tunnel did not start: ${DETAIL}. The service lists the token as active, so this server allows one session per credential: set input share to off, and each job provisions its own credential.`
    )
    expect(explainRefusedSharedLogin({ state: 'active' }, DETAIL, name => `--${name}`)).toContain(
      'set --share to off'
    )
  })

  it('names both causes when the service cannot tell, and why it could not', () => {
    const message = explainRefusedSharedLogin(
      { state: 'unknown', why: 'user-tokens-list: HTTP 403 FORBIDDEN' },
      DETAIL,
      github
    )
    expect(message).toBe(
      `The tunnel did not start: ${DETAIL}. The service could not tell whether the token is still active (user-tokens-list: HTTP 403 FORBIDDEN), so it is one of two causes: ` +
        `${REVOKED}; or this server allows one session per credential: set input share to off.`
    )
  })

  it('prints the tunnel process report as printable text', () => {
    const message = explainRefusedSharedLogin({ state: 'gone' }, 'refused\n::error::forged', github)
    expect(message).not.toMatch(/\n|^::|\n::/)
    expect(message).not.toContain('\n::error::')
  })
})
