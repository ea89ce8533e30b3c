/**
 * Two accounts: the default one and the seeded second owner. What each sees and may touch, and
 * the listings that are per account: user-api-keys-list and project-list.
 */
import { ed25519KeyPair } from './helpers/ed25519.js'
import { startCredentialService, type RunningService } from '../server.js'

const START = Date.parse('2030-01-01T00:00:00.000Z')
let clock = START
let service: RunningService

beforeEach(async () => {
  clock = START
  service = await startCredentialService({ now: () => clock })
})
afterEach(() => service.close())

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

const first = (): Record<string, string> => ({ 'X-API-Key': service.seed.provisionKey })
const second = (): Record<string, string> => ({ 'X-API-Key': service.seed.secondOwnerKey })
const jwt = (): Record<string, string> => ({ Authorization: `Bearer ${service.seed.jwt}` })

async function provisioned(headers: Record<string, string>, project: string): Promise<string> {
  const { status, body } = await call('credential-provision', { headers, body: { project } })
  expect(status).toBe(200)
  return body.tunnel_user as string
}

const tokenUsers = async (headers: Record<string, string>): Promise<string[]> => {
  const { body } = await call('user-tokens-list', { method: 'GET', headers })
  return (body.tokens as Json[]).map(token => token.tunnel_user as string)
}

describe('the second owner', () => {
  it('has its own key and project in the seed', () => {
    expect(service.seed.secondOwnerKey).toBe(`sk_${'5ec0'.repeat(16)}`)
    expect(service.seed.secondOwnerProject).toBe('second-owner-app')
  })

  it("provisions only on its own project: the first owner's reads as unknown, both ways", async () => {
    await provisioned(second(), service.seed.secondOwnerProject)
    const crossed = await call('credential-provision', {
      headers: second(),
      body: { project: service.seed.project }
    })
    expect(crossed).toEqual({
      status: 404,
      body: { error: `Project not found: "${service.seed.project}"`, code: 'NOT_FOUND' }
    })
    const back = await call('credential-provision', {
      headers: first(),
      body: { project: service.seed.secondOwnerProject }
    })
    expect(back.status).toBe(404)
  })

  it('cannot be revoked by the first owner: revoke-token answers 403 and the token stays active', async () => {
    const theirs = await provisioned(second(), service.seed.secondOwnerProject)
    const mine = await provisioned(first(), service.seed.project)
    for (const [headers, user] of [
      [first(), theirs],
      [jwt(), theirs],
      [second(), mine]
    ] as const) {
      const { status, body } = await call('revoke-token', { headers, body: { tunnel_user: user } })
      expect({ status, body }).toEqual({
        status: 403,
        body: { error: `Token "${user}" belongs to another account`, code: 'FORBIDDEN' }
      })
    }
    expect(service.tokens().map(token => token.status)).toEqual(['active', 'active'])
    expect(
      (await call('revoke-token', { headers: second(), body: { tunnel_user: theirs } })).status
    ).toBe(200)
  })

  it("lists its own tokens and the free ones, not the first owner's", async () => {
    const theirs = await provisioned(second(), service.seed.secondOwnerProject)
    const mine = await provisioned(first(), service.seed.project)
    const free = await call('create-ephemeral-token')
    const freeUser = free.body.tunnel_client_id as string
    expect(await tokenUsers(second())).toEqual([theirs, freeUser])
    expect(await tokenUsers(first())).toEqual([mine, freeUser])
    // Free tokens belong to no account: either may revoke one.
    expect(
      (await call('revoke-token', { headers: second(), body: { tunnel_user: freeUser } })).status
    ).toBe(200)
  })

  it('owns the project and the token that project-register makes', async () => {
    const registered = await call('project-register', {
      headers: second(),
      body: { slug: 'theirs', create_token: true }
    })
    const user = (registered.body.token as Json).tunnel_user as string
    expect(
      (await call('revoke-token', { headers: first(), body: { tunnel_user: user } })).status
    ).toBe(403)
    // Slugs are unique across accounts.
    const taken = await call('project-register', { headers: first(), body: { slug: 'theirs' } })
    expect(taken.status).toBe(400)
  })
})

describe('user-api-keys-list', () => {
  it("lists the caller's keys, metadata only: never a key value", async () => {
    const created = await call('api-keys-create', {
      headers: jwt(),
      body: { name: 'ci', scopes: ['cicd:provision'], expires_at: '2031-01-01T00:00:00.000Z' }
    })
    const { status, body } = await call('user-api-keys-list', { method: 'GET', headers: first() })
    expect(status).toBe(200)
    const keys = body.api_keys as Json[]
    expect(keys.map(key => key.name)).toEqual([
      'default: all scopes',
      'default: no cicd:provision',
      'ci'
    ])
    expect(keys[2]).toEqual({
      id: created.body.id,
      name: 'ci',
      scopes: ['cicd:provision'],
      status: 'active',
      created_at: new Date(START).toISOString(),
      last_used_at: null,
      expires_at: '2031-01-01T00:00:00.000Z'
    })
    const text = JSON.stringify(body)
    for (const secret of [
      service.seed.provisionKey,
      service.seed.keyWithoutScope,
      created.body.api_key as string
    ]) {
      expect(text).not.toContain(secret)
    }
    expect(text).not.toMatch(/sk_[0-9a-f]{64}/)
  })

  it('reports when a key was last used, and an expired key as expired', async () => {
    const created = await call('api-keys-create', {
      headers: jwt(),
      body: {
        name: 'short',
        scopes: ['token:read'],
        expires_at: new Date(START + 60_000).toISOString()
      }
    })
    clock += 1000
    await call('user-tokens-list', {
      method: 'GET',
      headers: { 'X-API-Key': created.body.api_key as string }
    })
    clock += 60_000
    const { body } = await call('user-api-keys-list', { method: 'GET', headers: jwt() })
    expect((body.api_keys as Json[]).find(key => key.id === created.body.id)).toMatchObject({
      status: 'expired',
      last_used_at: new Date(START + 1000).toISOString()
    })
  })

  it('shows the second owner only its own key', async () => {
    const { body } = await call('user-api-keys-list', { method: 'GET', headers: second() })
    expect((body.api_keys as Json[]).map(key => key.name)).toEqual(['second owner: all scopes'])
  })

  it('answers 403 for a key without apikey:read, and 401 without credentials', async () => {
    const refused = await call('user-api-keys-list', {
      method: 'GET',
      headers: { 'X-API-Key': service.seed.keyWithoutScope }
    })
    expect(refused).toEqual({
      status: 403,
      body: { error: 'API key lacks the apikey:read scope', code: 'FORBIDDEN' }
    })
    expect((await call('user-api-keys-list', { method: 'GET' })).status).toBe(401)
  })
})

describe('project-list', () => {
  it("lists the caller's projects with the tokens and SSH keys bound to each", async () => {
    const user = await provisioned(first(), service.seed.project)
    const { body: listedBefore } = await call('project-list', { method: 'GET', headers: first() })
    const demo = (listedBefore.projects as Json[])[0]
    const uploaded = await call('keys-upload', {
      headers: first(),
      body: {
        public_key_ssh: ed25519KeyPair().public,
        name: 'bound',
        client_id: demo.default_client_id
      }
    })
    // Not bound: another client id.
    await call('keys-upload', {
      headers: first(),
      body: {
        public_key_ssh: ed25519KeyPair().public,
        name: 'loose',
        client_id: 'other'
      }
    })
    const { status, body } = await call('project-list', { method: 'GET', headers: first() })
    expect(status).toBe(200)
    expect(body).toEqual({
      projects: [
        {
          id: demo.id,
          slug: service.seed.project,
          name: service.seed.project,
          default_client_id: expect.stringMatching(/^cid-[0-9a-f]{16}$/),
          tokens: [
            expect.objectContaining({
              tunnel_user: user,
              status: 'active',
              project_slug: service.seed.project
            })
          ],
          ssh_keys: [
            expect.objectContaining({
              id: uploaded.body.key_id,
              name: 'bound',
              client_id: demo.default_client_id
            })
          ]
        }
      ]
    })
    expect(JSON.stringify(body)).not.toMatch(/tok_/)
  })

  it('shows the second owner only its own project', async () => {
    await provisioned(first(), service.seed.project)
    const { body } = await call('project-list', { method: 'GET', headers: second() })
    expect((body.projects as Json[]).map(project => [project.slug, project.tokens])).toEqual([
      [service.seed.secondOwnerProject, []]
    ])
  })

  it('answers 401 without credentials', async () => {
    expect((await call('project-list', { method: 'GET' })).status).toBe(401)
  })
})
