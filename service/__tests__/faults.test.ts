/** Fault injection: each kind as a client meets it, plus queueing, endpoint filters and reset. */
import { startCredentialService, type RunningService } from '../server.js'

let service: RunningService

beforeAll(async () => {
  service = await startCredentialService()
})
afterAll(() => service.close())
afterEach(() => service.resetFaults())

function provision(signal?: AbortSignal): Promise<Response> {
  return fetch(`${service.baseUrl}/credential-provision`, {
    method: 'POST',
    headers: { 'X-API-Key': service.seed.provisionKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ project: 'demo-app' }),
    signal
  })
}

const listTokens = (): Promise<Response> =>
  fetch(`${service.baseUrl}/user-tokens-list`, {
    headers: { 'X-API-Key': service.seed.provisionKey }
  })

function admin(path: string, body?: unknown): Promise<Response> {
  return fetch(`${service.adminUrl}${path}`, {
    method: 'POST',
    body: body === undefined ? undefined : JSON.stringify(body)
  })
}

describe('fault kinds', () => {
  it('500 answers INTERNAL_ERROR for the next N requests, then the real answer', async () => {
    service.injectFault({ kind: '500', count: 2 })
    for (let i = 0; i < 2; i++) {
      const response = await provision()
      expect(response.status).toBe(500)
      expect(await response.json()).toEqual({
        error: 'Injected internal error',
        code: 'INTERNAL_ERROR'
      })
    }
    expect((await provision()).status).toBe(200)
  })

  it('429 answers RATE_LIMIT with the given retry_after', async () => {
    service.injectFault({ kind: '429', retryAfter: 3600 })
    const response = await provision()
    expect(response.status).toBe(429)
    expect(await response.json()).toEqual({
      error: expect.any(String),
      code: 'RATE_LIMIT',
      retry_after: 3600
    })
  })

  it('hang never answers: the client times out', async () => {
    service.injectFault({ kind: 'hang' })
    await expect(provision(AbortSignal.timeout(150))).rejects.toThrow()
    expect((await provision()).status).toBe(200)
  })

  it('close drops the connection without a response', async () => {
    service.injectFault({ kind: 'close' })
    await expect(provision()).rejects.toThrow('fetch failed')
    expect((await provision()).status).toBe(200)
  })

  it('non-json answers 200 with an HTML page', async () => {
    service.injectFault({ kind: 'non-json' })
    const response = await provision()
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('text/html')
    await expect(response.json()).rejects.toThrow()
  })

  it('hostile merges the override into a real credential, which exists in the list', async () => {
    service.injectFault({ kind: 'hostile', override: { tunnel_host: 'example.com\nEVIL=1' } })
    const response = await provision()
    expect(response.status).toBe(200)
    const body = (await response.json()) as Record<string, unknown>
    expect(body.tunnel_host).toBe('example.com\nEVIL=1')
    expect(body.token).toMatch(/^tok_/)
    expect(service.tokens().map(token => token.tunnel_user)).toContain(body.tunnel_user)
  })

  it('missing removes the named fields from a real answer', async () => {
    service.injectFault({ kind: 'missing', fields: ['token', 'expires_at'] })
    const body = (await (await provision()).json()) as Record<string, unknown>
    expect(body).not.toHaveProperty('token')
    expect(body).not.toHaveProperty('expires_at')
    expect(body.tunnel_user).toMatch(/^[a-z0-9]{5}$/)
  })

  it.each([204, 200])(
    'no-body answers %s with an empty body, and the request is handled',
    async status => {
      const { tunnel_user } = (await (await provision()).json()) as { tunnel_user: string }
      service.injectFault({ kind: 'no-body', status, endpoint: 'revoke-token' })
      const revoke = await fetch(`${service.baseUrl}/revoke-token`, {
        method: 'POST',
        headers: { 'X-API-Key': service.seed.provisionKey },
        body: JSON.stringify({ tunnel_user })
      })
      expect(revoke.status).toBe(status)
      expect(await revoke.text()).toBe('')
      expect(service.tokens().find(token => token.tunnel_user === tunnel_user)?.status).toBe(
        'revoked'
      )
    }
  )
  it('handled-hang handles the request for real, then never answers', async () => {
    service.injectFault({ kind: 'handled-hang', endpoint: 'credential-provision' })
    const before = service.tokens().length
    await expect(provision(AbortSignal.timeout(300))).rejects.toThrow()
    // The credential was made although its answer never came.
    expect(service.tokens()).toHaveLength(before + 1)
    expect(service.requests().at(-1)).toMatchObject({ fault: 'handled-hang', status: null })
  })
})

describe('fault queue', () => {
  it('answers in the order injected: 500, then 429, then success', async () => {
    service.injectFault({ kind: '500' })
    service.injectFault({ kind: '429', retryAfter: 1 })
    expect((await provision()).status).toBe(500)
    expect((await provision()).status).toBe(429)
    expect((await provision()).status).toBe(200)
  })

  it('with an endpoint, only requests to that endpoint take the fault', async () => {
    service.injectFault({ kind: '500', endpoint: 'revoke-token' })
    expect((await provision()).status).toBe(200)
    expect((await listTokens()).status).toBe(200)
    const revoke = await fetch(`${service.baseUrl}/revoke-token`, {
      method: 'POST',
      headers: { 'X-API-Key': service.seed.provisionKey },
      body: JSON.stringify({ tunnel_user: 'zzzzz' })
    })
    expect(revoke.status).toBe(500)
    expect(service.pendingFaults()).toEqual([])
  })

  it('resetFaults clears what is pending', async () => {
    service.injectFault({ kind: '500', count: 5 })
    service.resetFaults()
    expect((await provision()).status).toBe(200)
  })

  it('rejects a malformed fault in code', () => {
    expect(() => service.injectFault({ kind: 'teapot' } as never)).toThrow('Fault kind')
    expect(() => service.injectFault({ kind: '429' } as never)).toThrow('retryAfter')
    expect(() => service.injectFault({ kind: '500', endpoint: 'nope' })).toThrow('endpoint')
    expect(() => service.injectFault({ kind: '500', count: 0 })).toThrow('count')
    expect(() => service.injectFault({ kind: 'no-body', status: 199 })).toThrow('200 to 599')
  })
})

describe('admin endpoints', () => {
  it('POST /__admin/faults queues one fault or a list, in order', async () => {
    const response = await admin('/faults', [
      { kind: '429', retry_after: 7, endpoint: 'credential-provision' },
      { kind: 'missing', fields: ['token'] }
    ])
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      injected: 2,
      pending: [
        { kind: '429', retryAfter: 7, endpoint: 'credential-provision', remaining: 1 },
        { kind: 'missing', fields: ['token'], remaining: 1 }
      ]
    })
    expect(((await (await provision()).json()) as { retry_after: number }).retry_after).toBe(7)
    expect(await (await provision()).json()).not.toHaveProperty('token')
  })

  it('POST /__admin/faults refuses a bad list whole, with a 400 error object', async () => {
    const response = await admin('/faults', [{ kind: '500' }, { kind: 'hostile' }])
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      error: 'A hostile fault needs override, an object merged into the answer',
      code: 'BAD_REQUEST'
    })
    expect(service.pendingFaults()).toEqual([])
  })

  it('POST /__admin/reset clears faults; GET /__admin/faults shows them', async () => {
    await admin('/faults', { kind: '500', count: 3 })
    const pending = await fetch(`${service.adminUrl}/faults`)
    expect(await pending.json()).toEqual({ pending: [{ kind: '500', count: 3, remaining: 3 }] })
    expect((await admin('/reset')).status).toBe(200)
    expect((await provision()).status).toBe(200)
  })

  it('POST /__admin/faults gives a no-body fault the status 204 unless told', async () => {
    expect((await admin('/faults', { kind: 'no-body' })).status).toBe(200)
    expect(service.pendingFaults()).toEqual([{ kind: 'no-body', status: 204, remaining: 1 }])
  })

  it('admin requests never take a fault', async () => {
    service.injectFault({ kind: 'close' })
    const response = await fetch(`${service.adminUrl}/tokens`)
    expect(response.status).toBe(200)
    expect(service.pendingFaults()).toHaveLength(1)
  })
})

describe('close()', () => {
  it('ends hung requests so the process can exit', async () => {
    const own = await startCredentialService()
    own.injectFault({ kind: 'hang', count: 2 })
    const hung = fetch(`${own.baseUrl}/user-tokens-list`)
    const outcome = hung.then(
      () => 'answered',
      () => 'failed'
    )
    await new Promise(resolve => setTimeout(resolve, 50))
    const started = Date.now()
    await own.close()
    expect(Date.now() - started).toBeLessThan(1000)
    expect(await outcome).toBe('failed')
    await expect(own.close()).resolves.toBeUndefined()
  })

  it('starts the next service without the faults of the last', async () => {
    const own = await startCredentialService()
    try {
      expect(own.pendingFaults()).toEqual([])
    } finally {
      await own.close()
    }
  })
})
