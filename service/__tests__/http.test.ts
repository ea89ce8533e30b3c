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

  // Names every plain object inherits: a route table that is a plain object answered 405 for them.
  const inherited = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']

  it.each(inherited)('answers 404 NOT_FOUND for /functions/v1/%s, GET or POST', async name => {
    for (const method of ['GET', 'POST']) {
      const response = await fetch(`${service.baseUrl}/${name}`, { method })
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({
        error: `Unknown endpoint: /functions/v1/${name}`,
        code: 'NOT_FOUND'
      })
    }
  })

  it.each(inherited)('answers 404 NOT_FOUND for /__admin/%s, GET or POST', async name => {
    for (const method of ['GET', 'POST']) {
      const response = await fetch(`${service.adminUrl}/${name}`, { method })
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({
        error: `No admin endpoint ${method} /${name}`,
        code: 'NOT_FOUND'
      })
    }
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

  it('keeps only the last 1,000 requests', async () => {
    for (let i = 1; i <= 1005; i++) {
      await fetch(`${service.baseUrl}/no-such-endpoint?n=${i}`)
    }
    const paths = service.requests().map(request => request.path)
    expect(paths).toHaveLength(1000)
    expect(paths[0]).toBe('/functions/v1/no-such-endpoint?n=6')
    expect(paths.at(-1)).toBe('/functions/v1/no-such-endpoint?n=1005')
  })

  it('keeps the first 4 KiB of a longer body, and says it was cut', async () => {
    const body = JSON.stringify({ project: 'p'.repeat(10_000) })
    await fetch(`${service.baseUrl}/credential-provision`, { method: 'POST', body })
    const [{ body: kept }] = service.requests()
    expect(kept).toBe(`${body.slice(0, 4096)}… (cut: ${body.length} bytes in all)`)
  })

  it('cuts a long body between characters, never inside one', async () => {
    // 'é' is two bytes in UTF-8, so byte 4096 falls inside one after the 1-byte '"' prefix.
    const body = `"${'é'.repeat(5000)}"`
    await fetch(`${service.baseUrl}/credential-provision`, { method: 'POST', body })
    const [{ body: kept }] = service.requests()
    expect(kept).toBe(`"${'é'.repeat(2047)}… (cut: ${Buffer.byteLength(body)} bytes in all)`)
  })

  it('keeps a body of exactly 4 KiB whole', async () => {
    const body = JSON.stringify({ project: 'p'.repeat(4096 - 14) })
    expect(Buffer.byteLength(body)).toBe(4096)
    await fetch(`${service.baseUrl}/credential-provision`, { method: 'POST', body })
    expect(service.requests()[0].body).toEqual(JSON.parse(body))
  })

  it('is emptied by DELETE /__admin/requests and leaves admin calls out', async () => {
    await fetch(`${service.baseUrl}/user-tokens-list`)
    await fetch(`${service.adminUrl}/requests`, { method: 'DELETE' })
    await fetch(`${service.adminUrl}/tokens`)
    expect(service.requests()).toEqual([])
  })
})
