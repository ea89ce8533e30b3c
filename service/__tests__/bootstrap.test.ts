/** api-keys-create and project-register: the calls a bootstrap recipe makes before provisioning. */
import { startCredentialService, type RunningService } from '../server.js'

let service: RunningService

beforeAll(async () => {
  service = await startCredentialService()
})
afterAll(() => service.close())

type Json = Record<string, unknown>

async function post(
  endpoint: string,
  headers: Record<string, string>,
  body: unknown
): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${service.baseUrl}/${endpoint}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body)
  })
  return { status: response.status, body: (await response.json()) as Json }
}

const jwt = (): Record<string, string> => ({ Authorization: `Bearer ${service.seed.jwt}` })

describe('api-keys-create', () => {
  it('creates a key with a JWT (201); the key then provisions', async () => {
    const created = await post('api-keys-create', jwt(), {
      name: 'ci',
      scopes: ['cicd:provision']
    })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      api_key: expect.stringMatching(/^sk_[0-9a-f]{64}$/),
      expires_at: null,
      message: expect.any(String)
    })
    const provisioned = await post(
      'credential-provision',
      { 'X-API-Key': created.body.api_key as string },
      { project: 'demo-app' }
    )
    expect(provisioned.status).toBe(200)
  })

  it('creates a key only with apikey:write when called with a key', async () => {
    const allowed = await post(
      'api-keys-create',
      { 'X-API-Key': service.seed.provisionKey },
      { name: 'x', scopes: ['token:read'] }
    )
    expect(allowed.status).toBe(201)
    const refused = await post(
      'api-keys-create',
      { 'X-API-Key': service.seed.keyWithoutScope },
      { name: 'x', scopes: ['token:read'] }
    )
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('FORBIDDEN')
    const anonymous = await post('api-keys-create', {}, { name: 'x', scopes: ['token:read'] })
    expect(anonymous.status).toBe(401)
  })

  it('refuses unknown scopes, missing names and bad expiry with 400', async () => {
    for (const body of [
      { name: 'x', scopes: ['root'] },
      { scopes: ['token:read'] },
      { name: 'x', scopes: [] },
      { name: 'x', scopes: ['token:read'], expires_at: 'tomorrow' }
    ]) {
      const response = await post('api-keys-create', jwt(), body)
      expect(response.status).toBe(400)
      expect(response.body.code).toBe('BAD_REQUEST')
    }
  })

  it('does not accept a key after its expires_at', async () => {
    const created = await post('api-keys-create', jwt(), {
      name: 'old',
      scopes: ['token:read'],
      expires_at: '2000-01-01T00:00:00Z'
    })
    expect(created.body.expires_at).toBe('2000-01-01T00:00:00.000Z')
    const response = await fetch(`${service.baseUrl}/user-tokens-list`, {
      headers: { 'X-API-Key': created.body.api_key as string }
    })
    expect(response.status).toBe(401)
  })
})

describe('project-register', () => {
  it('registers a project with a bound token; both are usable at once', async () => {
    const { status, body } = await post('project-register', jwt(), {
      slug: 'new-app',
      name: 'New app',
      create_token: true
    })
    expect(status).toBe(200)
    expect(body).toEqual({
      project: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        slug: 'new-app',
        name: 'New app',
        default_client_id: expect.stringMatching(/^cid-/)
      },
      token: {
        token: expect.stringMatching(/^tok_/),
        tunnel_user: expect.stringMatching(/^[a-z0-9]{5}$/),
        expires_at: null
      }
    })
    const token = body.token as Json
    expect(service.tokens().find(entry => entry.tunnel_user === token.tunnel_user)).toMatchObject({
      status: 'active',
      tunnel_type: 'standard',
      project_slug: 'new-app',
      expires_at: null
    })
    const provisioned = await post(
      'credential-provision',
      { 'X-API-Key': service.seed.provisionKey },
      { project: 'new-app' }
    )
    expect(provisioned.body.project_slug).toBe('new-app')
  })

  it('answers token null without create_token, 400 for a taken or malformed slug', async () => {
    const key = { 'X-API-Key': service.seed.keyWithoutScope }
    const plain = await post('project-register', key, { slug: 'plain-app', name: 'Plain' })
    expect(plain.status).toBe(200)
    expect(plain.body.token).toBeNull()
    for (const slug of ['plain-app', 'demo-app', 'Bad Slug', '']) {
      const response = await post('project-register', key, { slug, name: 'x' })
      expect(response.status).toBe(400)
      expect(response.body.code).toBe('BAD_REQUEST')
    }
    expect((await post('project-register', {}, { slug: 'anon' })).status).toBe(401)
  })
})
