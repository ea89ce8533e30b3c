/** credential-provision as a client sees it: status codes, error objects, the credential. */
import { startCredentialService, type RunningService } from '../server.js'

const START = Date.parse('2030-01-01T00:00:00.000Z')
let clock = START
let service: RunningService

beforeAll(async () => {
  service = await startCredentialService({
    now: () => clock,
    projects: ['other-app'],
    tunnelHost: 'tunnel.test',
    tunnelPort: 4022
  })
})
afterAll(() => service.close())
beforeEach(() => {
  clock += 2 * 60 * 60 * 1000 // a fresh rate-limit window for every test
})

async function provision(
  body: unknown,
  headers: Record<string, string> = { 'X-API-Key': service.seed.provisionKey }
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${service.baseUrl}/credential-provision`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body)
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

describe('credential-provision', () => {
  it('returns the CI/CD credential object', async () => {
    const { status, body } = await provision({
      project: 'demo-app',
      environment: 'ci',
      ttl_minutes: 30
    })
    expect(status).toBe(200)
    expect(body).toEqual({
      token: expect.stringMatching(/^tok_[0-9a-f]{48}$/),
      tunnel_user: expect.stringMatching(/^[a-z0-9]{5}$/),
      client_id: expect.stringMatching(/^cid-/),
      expires_at: new Date(clock + 30 * 60_000).toISOString(),
      ttl_minutes: 30,
      tunnel_host: 'tunnel.test',
      tunnel_port: 4022,
      project_slug: 'demo-app'
    })
  })

  it('applies a 60-minute TTL when ttl_minutes is absent, and knows --project slugs', async () => {
    const { status, body } = await provision({ project: 'other-app' })
    expect(status).toBe(200)
    expect(body.ttl_minutes).toBe(60)
    expect(body.expires_at).toBe(new Date(clock + 60 * 60_000).toISOString())
    expect(body.project_slug).toBe('other-app')
  })

  it('hands out a different token and tunnel user every time', async () => {
    const first = await provision({ project: 'demo-app' })
    const second = await provision({ project: 'demo-app' })
    expect(second.body.token).not.toBe(first.body.token)
    expect(second.body.tunnel_user).not.toBe(first.body.tunnel_user)
  })

  it.each([
    ['no key', {}],
    ['an unknown key', { 'X-API-Key': `sk_${'0'.repeat(64)}` }],
    ['a JWT instead of a key', { Authorization: 'Bearer whatever' }]
  ])('answers 401 UNAUTHORIZED for %s', async (_label, headers) => {
    const { status, body } = await provision({ project: 'demo-app' }, headers)
    expect(status).toBe(401)
    expect(body).toEqual({ error: expect.any(String), code: 'UNAUTHORIZED' })
  })

  it('answers 403 FORBIDDEN for a key without cicd:provision', async () => {
    const { status, body } = await provision(
      { project: 'demo-app' },
      { 'X-API-Key': service.seed.keyWithoutScope }
    )
    expect(status).toBe(403)
    expect(body).toEqual({ error: 'API key lacks the cicd:provision scope', code: 'FORBIDDEN' })
  })

  it.each([
    ['a body that is not JSON', 'project=demo-app', 'Request body must be a JSON object'],
    ['a JSON array', '["demo-app"]', 'Request body must be a JSON object'],
    ['no project', {}, 'Missing required field: project'],
    ['an empty project', { project: '' }, 'Field project must be a non-empty string, got ""'],
    ['ttl_minutes -1', { project: 'demo-app', ttl_minutes: -1 }, 'got -1'],
    ['ttl_minutes 1441', { project: 'demo-app', ttl_minutes: 1441 }, 'got 1441'],
    ['ttl_minutes 1.5', { project: 'demo-app', ttl_minutes: 1.5 }, 'got 1.5'],
    ['ttl_minutes as a string', { project: 'demo-app', ttl_minutes: '60' }, 'got "60"'],
    ['a non-string environment', { project: 'demo-app', environment: 3 }, 'environment'],
    ['a project with a path', { project: 'a/b/c' }, 'must be a slug or owner/repo, got "a/b/c"'],
    ['a region that is not a label', { project: 'demo-app', region: 'EU 1' }, 'got "EU 1"'],
    ['a region that is not a string', { project: 'demo-app', region: 1 }, 'region'],
    ['metadata that is a list', { project: 'demo-app', metadata: ['x'] }, 'must be an object'],
    [
      'metadata with a nested object',
      { project: 'demo-app', metadata: { run: { id: 1 } } },
      'metadata.run must be a string'
    ],
    [
      'metadata with a key that is not a name',
      { project: 'demo-app', metadata: { 'a b': 'x' } },
      `keys must be 1-64 letters`
    ],
    [
      'metadata with 33 fields',
      {
        project: 'demo-app',
        metadata: Object.fromEntries([...Array(33).keys()].map(i => [`k${i}`, i]))
      },
      'at most 32 fields, got 33'
    ]
  ])('answers 400 BAD_REQUEST for %s', async (_label, body, message) => {
    const response = await provision(body)
    expect(response.status).toBe(400)
    expect(response.body.code).toBe('BAD_REQUEST')
    expect(response.body.error).toContain(message)
  })

  it.each([1, 1440])('accepts ttl_minutes %d, the bounds', async ttl => {
    const { status, body } = await provision({ project: 'demo-app', ttl_minutes: ttl })
    expect(status).toBe(200)
    expect(body.ttl_minutes).toBe(ttl)
  })

  it('answers 404 NOT_FOUND for an unknown project', async () => {
    const { status, body } = await provision({ project: 'no-such-app' })
    expect(status).toBe(404)
    expect(body).toEqual({ error: 'Project not found: "no-such-app"', code: 'NOT_FOUND' })
  })

  it('allows 60 requests per hour per key, then 429 with retry_after until the window frees', async () => {
    const windowStart = clock
    for (let i = 0; i < 60; i++) {
      clock = windowStart + i * 1000
      expect((await provision({ project: 'demo-app' })).status).toBe(200)
    }
    clock = windowStart + 10 * 60_000
    const limited = await provision({ project: 'demo-app' })
    expect(limited.status).toBe(429)
    // The first hit leaves the window one hour after it arrived: 50 minutes from now.
    expect(limited.body).toEqual({
      error: expect.any(String),
      code: 'RATE_LIMIT',
      retry_after: 50 * 60
    })

    // Another key has its own window.
    const keyed = await startCredentialService({ apiKeys: [`sk_${'ab'.repeat(32)}`] })
    try {
      const other = await fetch(`${keyed.baseUrl}/credential-provision`, {
        method: 'POST',
        headers: { 'X-API-Key': `sk_${'ab'.repeat(32)}` },
        body: JSON.stringify({ project: 'demo-app' })
      })
      expect(other.status).toBe(200)
    } finally {
      await keyed.close()
    }

    clock = windowStart + 60 * 60_000 + 1
    expect((await provision({ project: 'demo-app' })).status).toBe(200)
  })

  it('lists the new token as an active cicd token of its project', async () => {
    const { body } = await provision({ project: 'demo-app', environment: 'staging' })
    const entry = service.tokens().find(token => token.tunnel_user === body.tunnel_user)
    expect(entry).toMatchObject({
      status: 'active',
      tunnel_type: 'cicd',
      project_slug: 'demo-app',
      expires_at: body.expires_at
    })
  })
})
