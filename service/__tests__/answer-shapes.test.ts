/**
 * credential-provision in both shapes, as a client reads them: the spec's (the default) and the
 * product's, with what the product's own action sends (owner/repo, ttl_minutes 0, region,
 * metadata) and the naming fields that say how public URLs are formed.
 */
import { startCredentialService, type RunningService, type ServiceOptions } from '../server.js'

const START = Date.parse('2030-01-01T00:00:00.000Z')
const running: RunningService[] = []

async function start(options: ServiceOptions): Promise<RunningService> {
  const service = await startCredentialService({
    now: () => START,
    tunnelHost: 's1.eu1.tunnel.test',
    tunnelPort: 4022,
    ...options
  })
  running.push(service)
  return service
}
afterAll(() => Promise.all(running.map(service => service.close())))

async function provision(
  service: RunningService,
  body: unknown,
  key = service.seed.provisionKey
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${service.baseUrl}/credential-provision`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
    body: JSON.stringify(body)
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** The body the product's action sends, as scripts/provision.sh builds it. */
const productRequest = (project: string, ttl = 0) => ({
  project,
  ttl_minutes: ttl,
  region: 'eu1',
  metadata: { github_run_id: '1234', github_repository: project }
})

describe("the product's shape", () => {
  it('answers with the login as tunnel_client_id and secret, and the naming fields', async () => {
    const service = await start({ answerShape: 'product', tunnelFqdn: 'cicd.eu1.tunnel.test' })
    const { status, body } = await provision(service, productRequest('demo-app', 30))
    expect(status).toBe(200)
    expect(body).toEqual({
      tunnel_client_id: expect.stringMatching(/^[a-z0-9]{5}$/),
      tunnel_client_secret: expect.stringMatching(/^tok_[0-9a-f]{48}$/),
      tunnel_fqdn: 'cicd.eu1.tunnel.test',
      tunnel_host: 's1.eu1.tunnel.test',
      tunnel_port: 4022,
      ownership_type: 'shared',
      append_user_to_subdomain: true,
      expires_at: new Date(START + 30 * 60_000).toISOString()
    })
    // The same credential as the spec's shape would hand out: it is listed, and it is live.
    expect(service.tokens()).toContainEqual(
      expect.objectContaining({ tunnel_user: body.tunnel_client_id, status: 'active' })
    )
  })

  it.each([
    [{ ownership: 'dedicated' as const }, 'dedicated', false],
    [{ ownership: 'self-hosted' as const }, 'self-hosted', false],
    [{ ownership: 'shared' as const, appendUserToSubdomain: false }, 'shared', false],
    [{ ownership: 'dedicated' as const, appendUserToSubdomain: true }, 'dedicated', true]
  ])('says %j as ownership_type %s, append_user_to_subdomain %s', async (options, type, append) => {
    const service = await start({ answerShape: 'product', ...options })
    const { body } = await provision(service, productRequest('demo-app'))
    expect(body).toMatchObject({
      ownership_type: type,
      append_user_to_subdomain: append,
      tunnel_fqdn: 'localhost'
    })
  })

  it('gives ttl_minutes 0 a credential without expiry: no expires_at, listed without one', async () => {
    const service = await start({ answerShape: 'product' })
    const { status, body } = await provision(service, productRequest('demo-app', 0))
    expect(status).toBe(200)
    expect(body).not.toHaveProperty('expires_at')
    const listed = service.tokens().find(token => token.tunnel_user === body.tunnel_client_id)
    expect(listed).toMatchObject({ status: 'active', expires_at: null })
  })

  it('takes an owner/repo project nobody holds as the caller’s, and keeps it the caller’s', async () => {
    const service = await start({ answerShape: 'product' })
    const first = await provision(service, productRequest('octo-org/web.shop'))
    expect(first.status).toBe(200)
    const listed = service.tokens().find(token => token.tunnel_user === first.body.tunnel_client_id)
    expect(listed).toMatchObject({ project_slug: 'octo-org/web.shop' })
    // Another account asking for the same repository meets an unknown project, as for any slug.
    const other = await provision(
      service,
      productRequest('octo-org/web.shop'),
      service.seed.secondOwnerKey
    )
    expect(other).toEqual({
      status: 404,
      body: { error: 'Project not found: "octo-org/web.shop"', code: 'NOT_FOUND' }
    })
    // A plain slug is still looked up only.
    expect((await provision(service, productRequest('no-such-app'))).status).toBe(404)
  })

  it('adds the naming fields to a free credential too', async () => {
    const service = await start({ answerShape: 'product', ownership: 'dedicated' })
    const response = await fetch(`${service.baseUrl}/create-ephemeral-token`, { method: 'POST' })
    expect(await response.json()).toMatchObject({
      tunnel_client_id: expect.any(String),
      tunnel_fqdn: 'localhost',
      ownership_type: 'dedicated',
      append_user_to_subdomain: false
    })
  })
})

describe("the spec's shape, the default", () => {
  it('answers as before, and accepts what the product sends', async () => {
    const service = await start({})
    const { status, body } = await provision(service, productRequest('demo-app', 45))
    expect(status).toBe(200)
    expect(Object.keys(body)).toEqual([
      'token',
      'tunnel_user',
      'client_id',
      'expires_at',
      'ttl_minutes',
      'tunnel_host',
      'tunnel_port',
      'project_slug'
    ])
    expect(body.expires_at).toBe(new Date(START + 45 * 60_000).toISOString())
  })

  it('answers ttl_minutes 0 without expires_at', async () => {
    const service = await start({})
    const { body } = await provision(service, { project: 'demo-app', ttl_minutes: 0 })
    expect(body).toMatchObject({ ttl_minutes: 0, tunnel_user: expect.any(String) })
    expect(body).not.toHaveProperty('expires_at')
  })

  it('does not adopt an owner/repo project: the spec knows registered projects only', async () => {
    const service = await start({})
    expect(await provision(service, { project: 'octo-org/web' })).toMatchObject({ status: 404 })
  })
})

describe('options from code are checked', () => {
  it.each([
    [{ answerShape: 'xml' }, 'answerShape must be spec or product'],
    [{ tunnelFqdn: 'not a host' }, 'tunnelFqdn must be a host name'],
    [{ ownership: 'rented' }, 'ownership must be one of shared, dedicated, self-hosted']
  ])('refuses %j', async (options, message) => {
    await expect(startCredentialService(options as ServiceOptions)).rejects.toThrow(message)
  })
})
