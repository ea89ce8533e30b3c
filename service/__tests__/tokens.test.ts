/** The token lifecycle as a client sees it: list, revoke, expiry, free credentials. */
import { startCredentialService, type RunningService } from '../server.js'

const START = Date.parse('2030-01-01T00:00:00.000Z')
let clock = START
let service: RunningService

beforeAll(async () => {
  service = await startCredentialService({ now: () => clock })
})
afterAll(() => service.close())

type Json = Record<string, unknown>

async function call(
  endpoint: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}
): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${service.baseUrl}/${endpoint}`, {
    method: init.method ?? 'POST',
    headers: { 'Content-Type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body)
  })
  return { status: response.status, body: (await response.json()) as Json }
}

const withKey = (): Record<string, string> => ({ 'X-API-Key': service.seed.provisionKey })
const withJwt = (): Record<string, string> => ({ Authorization: `Bearer ${service.seed.jwt}` })

async function provisioned(ttlMinutes = 60): Promise<string> {
  const { body } = await call('credential-provision', {
    headers: withKey(),
    body: { project: 'demo-app', ttl_minutes: ttlMinutes }
  })
  return body.tunnel_user as string
}

async function listed(tunnelUser: string): Promise<Json | undefined> {
  const { body } = await call('user-tokens-list', { method: 'GET', headers: withKey() })
  return (body.tokens as Json[]).find(token => token.tunnel_user === tunnelUser)
}

describe('user-tokens-list', () => {
  it('answers 401 UNAUTHORIZED without credentials, or with unknown ones', async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { 'X-API-Key': 'sk_nope' },
      { Authorization: 'Bearer nope' }
    ]
    for (const headers of attempts) {
      const { status, body } = await call('user-tokens-list', { method: 'GET', headers })
      expect(status).toBe(401)
      expect(body.code).toBe('UNAUTHORIZED')
    }
  })

  it("lists a provisioned token with the spec's fields and the stand-in's extras", async () => {
    const user = await provisioned()
    expect(await listed(user)).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      tunnel_user: user,
      status: 'active',
      tunnel_type: 'cicd',
      created_at: new Date(clock).toISOString(),
      last_used_at: null,
      usage_count: 0,
      config_name: 'demo-app',
      expires_at: new Date(clock + 60 * 60_000).toISOString(),
      project_slug: 'demo-app'
    })
  })

  it('accepts the seeded JWT and the key without cicd:provision', async () => {
    const user = await provisioned()
    for (const headers of [withJwt(), { 'X-API-Key': service.seed.keyWithoutScope }]) {
      const { status, body } = await call('user-tokens-list', { method: 'GET', headers })
      expect(status).toBe(200)
      expect((body.tokens as Json[]).map(token => token.tunnel_user)).toContain(user)
    }
  })

  it('reads a token as expired once its TTL has passed', async () => {
    const user = await provisioned(1)
    clock += 59_999
    expect((await listed(user))?.status).toBe('active')
    clock += 1
    expect((await listed(user))?.status).toBe('expired')
  })

  it('reads a token as expired at once after POST /__admin/expire', async () => {
    const user = await provisioned()
    const response = await fetch(`${service.adminUrl}/expire`, {
      method: 'POST',
      body: JSON.stringify({ tunnel_user: user })
    })
    expect(response.status).toBe(200)
    expect((await listed(user))?.status).toBe('expired')
    const unknown = await fetch(`${service.adminUrl}/expire`, {
      method: 'POST',
      body: JSON.stringify({ tunnel_user: 'zzzzz' })
    })
    expect(unknown.status).toBe(404)
    expect(() => service.expire('zzzzz')).toThrow('Unknown tunnel user')
  })
})

describe('revoke-token', () => {
  it('revokes with an API key: the token goes from active to revoked in the list', async () => {
    const user = await provisioned()
    expect((await listed(user))?.status).toBe('active')
    const { status, body } = await call('revoke-token', {
      headers: withKey(),
      body: { tunnel_user: user }
    })
    expect(status).toBe(200)
    expect(body).toEqual({ success: true, message: `Token ${user} revoked` })
    expect((await listed(user))?.status).toBe('revoked')
  })

  it('revokes with the seeded JWT', async () => {
    const user = await provisioned()
    const { status } = await call('revoke-token', {
      headers: withJwt(),
      body: { tunnel_user: user }
    })
    expect(status).toBe(200)
    expect(service.tokens().find(token => token.tunnel_user === user)?.status).toBe('revoked')
  })

  it('answers 404 NOT_FOUND for a token already revoked, or unknown', async () => {
    const user = await provisioned()
    await call('revoke-token', { headers: withKey(), body: { tunnel_user: user } })
    for (const tunnelUser of [user, 'zzzzz']) {
      const { status, body } = await call('revoke-token', {
        headers: withKey(),
        body: { tunnel_user: tunnelUser }
      })
      expect(status).toBe(404)
      expect(body).toEqual({
        error: `Token not found or already revoked: "${tunnelUser}"`,
        code: 'NOT_FOUND'
      })
    }
  })

  it('still revokes a token that has expired', async () => {
    const user = await provisioned()
    service.expire(user)
    const { status } = await call('revoke-token', {
      headers: withKey(),
      body: { tunnel_user: user }
    })
    expect(status).toBe(200)
    expect((await listed(user))?.status).toBe('revoked')
  })

  it('answers 401 without credentials and 400 without tunnel_user', async () => {
    const user = await provisioned()
    const unauthenticated = await call('revoke-token', { body: { tunnel_user: user } })
    expect(unauthenticated.status).toBe(401)
    expect(unauthenticated.body.code).toBe('UNAUTHORIZED')
    expect((await listed(user))?.status).toBe('active')

    const missing = await call('revoke-token', { headers: withKey(), body: {} })
    expect(missing.status).toBe(400)
    expect(missing.body).toEqual({
      error: 'Missing required field: tunnel_user',
      code: 'BAD_REQUEST'
    })
  })
})

describe('create-ephemeral-token', () => {
  it('hands out 5-minute free credentials without authentication, listed as free', async () => {
    const { status, body } = await call('create-ephemeral-token')
    expect(status).toBe(200)
    expect(body).toEqual({
      tunnel_client_id: expect.stringMatching(/^[a-z0-9]{5}$/),
      tunnel_client_secret: expect.stringMatching(/^sec_[0-9a-f]{48}$/),
      expires_at: new Date(clock + 5 * 60_000).toISOString(),
      tunnel_host: '127.0.0.1',
      tunnel_port: 2223,
      limits: { max_uptime_minutes: 5, max_connections_per_hour: 10 }
    })
    const entry = await listed(body.tunnel_client_id as string)
    expect(entry).toMatchObject({ status: 'active', tunnel_type: 'free', project_slug: null })
    clock += 5 * 60_000
    expect((await listed(body.tunnel_client_id as string))?.status).toBe('expired')
  })

  it('allows 10 per hour per client address, then 429 with retry_after', async () => {
    clock += 2 * 60 * 60_000
    const windowStart = clock
    for (let i = 0; i < 10; i++) {
      expect((await call('create-ephemeral-token')).status).toBe(200)
    }
    clock = windowStart + 15 * 60_000
    const limited = await call('create-ephemeral-token')
    expect(limited.status).toBe(429)
    expect(limited.body).toEqual({
      error: expect.any(String),
      code: 'RATE_LIMIT',
      retry_after: 45 * 60
    })
    clock = windowStart + 60 * 60_000
    expect((await call('create-ephemeral-token')).status).toBe(200)
  })
})
