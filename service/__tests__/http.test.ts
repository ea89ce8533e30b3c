/** The HTTP surface around the endpoints: routing, methods, body size, the request log. */
import { startCredentialService, type RunningService } from '../server.js'

let service: RunningService

beforeAll(async () => {
  service = await startCredentialService()
})
afterAll(() => service.close())
beforeEach(() => service.clearRequests())

describe('routing', () => {
  it('answers 404 NOT_FOUND for an unknown endpoint, inside /functions/v1 or not', async () => {
    for (const url of [`${service.baseUrl}/no-such-endpoint`, `${service.origin}/elsewhere`]) {
      const response = await fetch(url)
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ error: expect.any(String), code: 'NOT_FOUND' })
    }
  })

  it('answers 405 with an error object for the wrong method', async () => {
    const response = await fetch(`${service.baseUrl}/credential-provision`)
    expect(response.status).toBe(405)
    expect(await response.json()).toEqual({
      error: 'Method GET not allowed for credential-provision; use POST',
      code: 'BAD_REQUEST'
    })
  })

  it('answers 413 for a body above 1 MB', async () => {
    const response = await fetch(`${service.baseUrl}/credential-provision`, {
      method: 'POST',
      headers: { 'X-API-Key': service.seed.provisionKey },
      body: JSON.stringify({ project: 'x'.repeat(1024 * 1024) })
    })
    expect(response.status).toBe(413)
    expect(await response.json()).toEqual({
      error: 'Request body above 1 MB',
      code: 'BAD_REQUEST'
    })
  })

  it('answers 404 for an unknown admin endpoint', async () => {
    const response = await fetch(`${service.adminUrl}/nothing`)
    expect(response.status).toBe(404)
    expect(((await response.json()) as { code: string }).code).toBe('NOT_FOUND')
  })

  it('answers 404 to POST /__admin/tunnel/drop when the tunnel stand-in is not running', async () => {
    const response = await fetch(`${service.adminUrl}/tunnel/drop`, { method: 'POST' })
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({
      error: 'The tunnel stand-in is not running: start the service with `tunnel`',
      code: 'NOT_FOUND'
    })
  })

  it('serves base URLs that end in /functions/v1 on 127.0.0.1', () => {
    expect(service.baseUrl).toBe(`http://127.0.0.1:${service.port}/functions/v1`)
    expect(service.adminUrl).toBe(`http://127.0.0.1:${service.port}/__admin`)
  })
})

describe('request log', () => {
  it('records what the client sent, with credentials redacted', async () => {
    await fetch(`${service.baseUrl}/credential-provision`, {
      method: 'POST',
      headers: { 'X-API-Key': service.seed.provisionKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ project: 'demo-app', ttl_minutes: 15 })
    })
    await fetch(`${service.baseUrl}/user-tokens-list`, {
      headers: { Authorization: `Bearer ${service.seed.jwt}` }
    })
    const [provision, list] = service.requests()
    expect(provision).toMatchObject({
      method: 'POST',
      path: '/functions/v1/credential-provision',
      body: { project: 'demo-app', ttl_minutes: 15 },
      status: 200,
      fault: null
    })
    expect(provision.headers['x-api-key']).toBe('sk_…c1cd')
    expect(provision.headers['content-type']).toBe('application/json')
    expect(list.headers.authorization).toBe('Bearer …ture')
    expect(JSON.stringify(service.requests())).not.toContain(service.seed.provisionKey)
    expect(JSON.stringify(service.requests())).not.toContain(service.seed.jwt)
  })

  it('is served by GET /__admin/requests, keeps raw non-JSON bodies and the fault taken', async () => {
    service.injectFault({ kind: '500' })
    await fetch(`${service.baseUrl}/revoke-token`, { method: 'POST', body: 'not json' })
    const response = await fetch(`${service.adminUrl}/requests`)
    expect(await response.json()).toEqual({
      requests: [expect.objectContaining({ body: 'not json', status: 500, fault: '500' })]
    })
  })

  it('is emptied by DELETE /__admin/requests and leaves admin calls out', async () => {
    await fetch(`${service.baseUrl}/user-tokens-list`)
    await fetch(`${service.adminUrl}/requests`, { method: 'DELETE' })
    await fetch(`${service.adminUrl}/tokens`)
    expect(service.requests()).toEqual([])
  })
})
