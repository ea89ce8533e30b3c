/**
 * The service client against real sockets on 127.0.0.1: what nock cannot fake (a silent server,
 * a body that never ends, a dropped connection, a proxy) is exercised here for real.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import {
  CredentialService,
  interpretAnswer,
  ServiceError
} from '../../../src/core/service/client.js'
import { AttemptsExhausted } from '../../../src/core/service/retry.js'
import { startRecordingProxy, type RecordingProxy } from '../../helpers/connect-proxy.js'

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void

const servers: { close: () => void }[] = []
afterEach(() => {
  for (const server of servers.splice(0)) server.close()
})

async function serve(handler: Handler): Promise<{ url: string; hits: () => number }> {
  let hits = 0
  const sockets = new Set<Socket>()
  const server: Server = createServer((request, response) => {
    hits++
    let body = ''
    request.on('data', chunk => (body += chunk))
    request.on('end', () => handler(request, response, body))
  })
  server.on('connection', socket => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  servers.push({
    close: () => {
      for (const socket of sockets) socket.destroy()
      server.close()
    }
  })
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/functions/v1`,
    hits: () => hits
  }
}

function client(
  baseUrl: string,
  overrides: Partial<ConstructorParameters<typeof CredentialService>[0]> = {}
) {
  const sleeps: number[] = []
  const service = new CredentialService({
    baseUrl,
    maxAttempts: 1,
    timeoutSeconds: 1,
    sleep: async ms => void sleeps.push(ms),
    random: () => 0.5,
    ...overrides
  })
  return { service, sleeps }
}

const CREDENTIAL = { token: 'tok_x', tunnel_user: 'u1', tunnel_host: 'h.test', tunnel_port: 2223 }

it('gives up on a silent server after timeout-seconds per attempt', async () => {
  const silent = await serve(() => {})
  const { service } = client(silent.url, { maxAttempts: 2 })
  const started = Date.now()
  const error = await service.createFreeCredential().catch(e => e)
  const elapsed = Date.now() - started
  expect(error).toBeInstanceOf(AttemptsExhausted)
  expect((error as AttemptsExhausted).cause).toMatchObject({
    kind: 'timeout',
    message: 'no answer within 1 s'
  })
  expect(silent.hits()).toBe(2)
  // Two 1 s attempts; the sleep between them is faked. A loose ceiling, not a speed target.
  expect(elapsed).toBeGreaterThanOrEqual(1900)
  expect(elapsed).toBeLessThan(5000)
})

it('times out a body that starts but never ends', async () => {
  const trickle = await serve((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' })
    response.write('{"token":')
  })
  const error = await client(trickle.url)
    .service.createFreeCredential()
    .catch(e => e)
  expect((error as AttemptsExhausted).cause).toMatchObject({ kind: 'timeout' })
})

it('retries a dropped connection, then takes the answer', async () => {
  let calls = 0
  const flaky = await serve((request, response) => {
    if (++calls === 1) request.socket.destroy()
    else
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(CREDENTIAL))
  })
  const { service, sleeps } = client(flaky.url, { maxAttempts: 3 })
  await expect(service.createFreeCredential()).resolves.toEqual(CREDENTIAL)
  expect(sleeps).toEqual([750])
})

it('does not follow a redirect, so the API key cannot be carried elsewhere', async () => {
  const elsewhere = await serve((_request, response) => response.end('{}'))
  const redirecting = await serve((_request, response) =>
    response.writeHead(307, { location: `${elsewhere.url}/credential-provision` }).end()
  )
  const error = await client(redirecting.url)
    .service.provisionCredential({ apiKey: 'sk_x', project: 'p', environment: '' })
    .catch(e => e)
  expect(error).toBeInstanceOf(ServiceError)
  expect(error).toMatchObject({ status: 307 })
  expect(elsewhere.hits()).toBe(0)
})

it('reads retry_after from the Retry-After header when the body has none', async () => {
  let calls = 0
  const limited = await serve((_request, response) => {
    if (++calls === 1) response.writeHead(429, { 'retry-after': '1' }).end('{}')
    else response.end(JSON.stringify(CREDENTIAL))
  })
  const { service, sleeps } = client(limited.url, { maxAttempts: 2 })
  await expect(service.createFreeCredential()).resolves.toEqual(CREDENTIAL)
  expect(sleeps).toEqual([1000])
})

it('refuses a body whose declared length is over the limit without reading it', async () => {
  const huge = await serve((_request, response) => {
    response.writeHead(200, { 'content-length': String(50 * 1024 * 1024) })
    response.write('{')
  })
  const error = await client(huge.url)
    .service.createFreeCredential()
    .catch(e => e)
  expect(error).toMatchObject({
    kind: 'bad-response',
    message: 'a response body larger than 1024 KiB'
  })
})

it('revokes, and reports a 404 as already gone', async () => {
  const seen: unknown[] = []
  let calls = 0
  const server = await serve((request, response, body) => {
    seen.push({ path: request.url, key: request.headers['x-api-key'], body: JSON.parse(body) })
    if (++calls === 1) response.end('{"success":true}')
    else response.writeHead(404).end('{"error":"gone","code":"NOT_FOUND"}')
  })
  const { service } = client(server.url)
  await expect(service.revokeCredential('sk_k', 'u1')).resolves.toBe('revoked')
  await expect(service.revokeCredential('sk_k', 'u1')).resolves.toBe('already-gone')
  expect(seen[0]).toEqual({
    path: '/functions/v1/revoke-token',
    key: 'sk_k',
    body: { tunnel_user: 'u1' }
  })
})

describe('proxies', () => {
  const saved = { ...process.env }
  afterEach(() => {
    process.env = { ...saved }
  })

  async function connectProxy(): Promise<RecordingProxy> {
    const proxy = await startRecordingProxy()
    servers.push({ close: () => void proxy.close() })
    return proxy
  }

  it('sends https requests through https_proxy', async () => {
    const proxy = await connectProxy()
    process.env.https_proxy = proxy.url
    delete process.env.no_proxy
    delete process.env.NO_PROXY
    const error = await client('https://credentials.example.test/functions/v1')
      .service.createFreeCredential()
      .catch(e => e)
    expect(proxy.targets).toEqual(['credentials.example.test:443'])
    expect((error as AttemptsExhausted).cause).toMatchObject({ kind: 'network' })
  })

  it('skips the proxy for hosts in no_proxy', async () => {
    const proxy = await connectProxy()
    process.env.https_proxy = proxy.url
    process.env.no_proxy = 'localhost,.example.test'
    const error = await client('https://credentials.example.test/functions/v1')
      .service.createFreeCredential()
      .catch(e => e)
    // Straight to the host, which does not resolve here: a network error, and the proxy unasked.
    expect(proxy.targets).toEqual([])
    expect((error as AttemptsExhausted).cause).toMatchObject({
      kind: expect.stringMatching(/network|timeout/)
    })
  })
})

describe('interpretAnswer', () => {
  it('reads a body that starts with a byte order mark as JSON, as fetch json() does', () => {
    expect(interpretAnswer('credential-provision', 200, '\uFEFF{"tunnel_user":"ab12c"}')).toEqual({
      tunnel_user: 'ab12c'
    })
    // Only one mark is dropped, and only at the start.
    expect(() => interpretAnswer('credential-provision', 200, '\uFEFF\uFEFF{}')).toThrow(
      'HTTP 200 with a body that is not JSON'
    )
  })
  const NOW = Date.parse('2026-11-23T10:00:00Z')
  const thrownBy = (status: number, header: string): ServiceError => {
    try {
      interpretAnswer('credential-provision', status, '{}', header, NOW)
    } catch (error) {
      return error as ServiceError
    }
    throw new Error('interpretAnswer did not throw')
  }

  it('reads a Retry-After given as an HTTP date, against the injected clock', () => {
    expect(thrownBy(429, 'Mon, 23 Nov 2026 10:00:30 GMT')).toMatchObject({
      status: 429,
      retryAfterSeconds: 30
    })
  })

  it('reads a past Retry-After date as no wait, and an unreadable one as none given', () => {
    const retryAfter = (header: string) => thrownBy(503, header).retryAfterSeconds
    expect(retryAfter('Mon, 23 Nov 2026 09:00:00 GMT')).toBe(0)
    expect(retryAfter('soon')).toBeUndefined()
    expect(retryAfter('99999999999999')).toBe(99999999999999)
  })

  it('takes any 2xx from revoke-token as done, with or without a body', () => {
    expect(interpretAnswer('revoke-token', 204, '')).toBeUndefined()
    expect(interpretAnswer('revoke-token', 200, '')).toBeUndefined()
    expect(interpretAnswer('revoke-token', 202, 'accepted')).toBeUndefined()
    expect(interpretAnswer('revoke-token', 200, '{"success":true}')).toEqual({ success: true })
  })

  it('shows no part of a 2xx body that is not JSON', () => {
    expect(() =>
      interpretAnswer('create-ephemeral-token', 200, '{"tunnel_client_secret":"s3')
    ).toThrow('HTTP 200 with a body that is not JSON (27 bytes, not shown)')
    expect(() => interpretAnswer('create-ephemeral-token', 200, ' ')).toThrow(
      'HTTP 200 with an empty body'
    )
  })

  it('hides credential-shaped runs in a short error body', () => {
    const key = `sk_${'0a'.repeat(8)}`
    expect(() =>
      interpretAnswer(
        'credential-provision',
        500,
        `bad key ${key}, hash ${'f'.repeat(20)}; id Zm9vYmFyYmF6cXV4cXV1eHl6enk=`
      )
    ).toThrow('HTTP 500 (body: bad key ***, hash ***; id ***)')
  })

  const errorOf = (status: number, text: string): ServiceError => {
    try {
      interpretAnswer('credential-provision', status, text)
    } catch (error) {
      return error as ServiceError
    }
    throw new Error('interpretAnswer did not throw')
  }

  it("hides credential-shaped runs in the service's error and code too", () => {
    const token = 'tok_3f9a8b7c6d5e4f3a2b1c'
    expect(errorOf(301, `{"error":"=token ${token} refused"}`)).toMatchObject({
      message: 'HTTP 301: =token *** refused',
      serviceMessage: '=token *** refused'
    })
    expect(errorOf(408, `{"code":"invalid token ${token}"}`)).toMatchObject({
      message: 'HTTP 408 invalid token ***',
      code: 'invalid token ***'
    })
  })

  it('leaves no tail of a token that a line break cut in two', () => {
    const error = errorOf(400, 'tok_3f9a8\nb7c6d5e4f3a2b1c')
    expect(error.message).toBe('HTTP 400 (body: *** ***)')
  })

  it("escapes the runner's ##[ command form in what the service said", () => {
    expect(errorOf(500, '{"error":"##[stop-commands]p","code":"##[add-mask]x"}').message).toBe(
      'HTTP 500 \\u0023#[add-mask]x: \\u0023#[stop-commands]p'
    )
  })
})

describe('IPv6 base URLs', () => {
  it('reaches http://[::1]:PORT', async () => {
    const server = createServer((_request, response) => response.end(JSON.stringify(CREDENTIAL)))
    await new Promise<void>(resolve => server.listen(0, '::1', resolve))
    servers.push({ close: () => server.close() })
    const port = (server.address() as AddressInfo).port
    await expect(
      client(`http://[::1]:${port}/functions/v1`).service.createFreeCredential()
    ).resolves.toEqual(CREDENTIAL)
  })

  it('sends http://[::1] to the address, not to the resolver', async () => {
    // Port 80 needs root to listen on, so nothing is served: whatever is (or is not) there, the
    // answer must not be a failed name lookup of "[::1]".
    const outcome = await client('http://[::1]/functions/v1')
      .service.createFreeCredential()
      .then(
        () => 'answered',
        (error: unknown) => String((error as AttemptsExhausted).cause ?? error)
      )
    expect(outcome).not.toMatch(/ENOTFOUND|getaddrinfo/)
  })
})
