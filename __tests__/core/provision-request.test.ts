/**
 * What main sends to the credential service and what it makes of the answer: the request, the
 * variables, outputs, saved state and summary, the masks, and the retries on a service's errors.
 * Through the in-memory host; the GitHub host's own tests are in __tests__/github.
 */
import nock from 'nock'
import { API_KEY, BASE_URL } from '../helpers/in-process-step.js'
import { linesLeaking, provisionWith } from '../helpers/memory-step.js'
import { useNock } from '../helpers/nock-lifecycle.js'
import { ORIGIN, PATH, TOKEN, CREDENTIAL, INPUTS } from '../helpers/provision-answer.js'

useNock(nock)

const run = (inputs: Record<string, string> = INPUTS, now?: string) =>
  provisionWith(inputs, { now })

describe('main, happy path', () => {
  it('sends the documented request and exports, outputs, saves and summarises the credential', async () => {
    let sentBody: unknown
    const scope = nock(ORIGIN, {
      reqheaders: {
        'x-api-key': API_KEY,
        'content-type': 'application/json',
        accept: 'application/json',
        'user-agent': /^provision-tunnel-credentials\/1\.0\.0/
      }
    })
      .post(PATH, body => ((sentBody = body), true))
      .reply(200, CREDENTIAL)

    const step = await run({ ...INPUTS, environment: 'staging', 'ttl-minutes': '30' })

    expect(scope.isDone()).toBe(true)
    expect(sentBody).toEqual({ project: 'web-shop', environment: 'staging', ttl_minutes: 30 })
    expect(step.failed).toBe(false)
    expect(step.env).toEqual({
      SVC_TUNNEL_TOKEN: TOKEN,
      SVC_TUNNEL_USER: 'ab12c',
      SVC_TUNNEL_HOST: 'tunnel.example.test',
      SVC_TUNNEL_PORT: '2223'
    })
    expect(step.outputs).toEqual({
      token: TOKEN,
      'tunnel-user': 'ab12c',
      'client-id': 'client-77',
      'tunnel-host': 'tunnel.example.test',
      'tunnel-port': '2223',
      'expires-at': '2026-11-23T11:00:00Z',
      'ttl-minutes': '60',
      'project-slug': 'web-shop',
      credential: 'cicd'
    })
    expect(JSON.parse(step.saved.credential)).toEqual({
      kind: 'cicd',
      tunnelUser: 'ab12c',
      baseUrl: BASE_URL,
      expiresAt: '2026-11-23T11:00:00Z'
    })
    expect(step.cells).toContain('staging')
    expect(step.cells).toContain('ab12c')
    expect(JSON.stringify(step.summaries)).not.toContain(TOKEN)
    expect(step.infos).toContain(
      'Provisioned tunnel user ab12c for tunnel.example.test:2223, valid until 2026-11-23T11:00:00Z. Exported SVC_TUNNEL_TOKEN, _USER, _HOST and _PORT.'
    )
  })

  it('masks the API key first and the token before any other line, and shows neither elsewhere', async () => {
    nock(ORIGIN).post(PATH).reply(200, CREDENTIAL)
    const step = await run()

    expect(step.events[0]).toBe(`mask ${API_KEY}`)
    expect(step.masks).toEqual([API_KEY, TOKEN])
    const tokenMask = step.events.indexOf(`mask ${TOKEN}`)
    const firstAboutCredential = step.events.findIndex(line => line.includes('ab12c'))
    expect(tokenMask).toBeGreaterThan(0)
    expect(tokenMask).toBeLessThan(firstAboutCredential)
    expect(linesLeaking(step, API_KEY)).toEqual([])
    expect(linesLeaking(step, TOKEN)).toEqual([])
    // Host, port and user stay readable: masking them would blank outputs other jobs read.
    expect(step.masks).not.toContain('ab12c')
    expect(step.masks).not.toContain('tunnel.example.test')
  })

  it('sends only the project when environment and ttl-minutes are empty', async () => {
    let sentBody: unknown
    nock(ORIGIN)
      .post(PATH, body => ((sentBody = body), true))
      .reply(200, CREDENTIAL)
    await run()
    expect(sentBody).toEqual({ project: 'web-shop' })
  })

  it('uses env-prefix for the variable names and sets only outputs when export-env is false', async () => {
    nock(ORIGIN).post(PATH).twice().reply(200, CREDENTIAL)
    const prefixed = await run({ ...INPUTS, 'env-prefix': 'ACME' })
    expect(Object.keys(prefixed.env).sort()).toEqual([
      'ACME_TUNNEL_HOST',
      'ACME_TUNNEL_PORT',
      'ACME_TUNNEL_TOKEN',
      'ACME_TUNNEL_USER'
    ])
    const outputsOnly = await run({ ...INPUTS, 'export-env': 'false' })
    expect(outputsOnly.env).toEqual({})
    expect(outputsOnly.outputs.token).toBe(TOKEN)
  })

  it('lets tunnel-host and tunnel-port override what the service sent', async () => {
    nock(ORIGIN).post(PATH).reply(200, CREDENTIAL)
    const step = await run({ ...INPUTS, 'tunnel-host': 'tunnel.internal', 'tunnel-port': '2022' })
    expect(step.env.SVC_TUNNEL_HOST).toBe('tunnel.internal')
    expect(step.env.SVC_TUNNEL_PORT).toBe('2022')
  })

  it('uses port 2223 with a notice when the service sends none, and accepts a numeric string', async () => {
    const { tunnel_port: _unused, ...withoutPort } = CREDENTIAL
    nock(ORIGIN).post(PATH).reply(200, withoutPort)
    const defaulted = await run()
    expect(defaulted.env.SVC_TUNNEL_PORT).toBe('2223')
    expect(defaulted.notices).toEqual([
      'The service sent no tunnel_port; using the default port 2223.'
    ])

    nock(ORIGIN)
      .post(PATH)
      .reply(200, { ...CREDENTIAL, tunnel_port: '2022' })
    expect((await run()).env.SVC_TUNNEL_PORT).toBe('2022')
  })

  it('maps tunnel_client_id and tunnel_client_secret when a deployment answers with them', async () => {
    nock(ORIGIN).post(PATH).reply(200, {
      tunnel_client_id: 'cli-9',
      tunnel_client_secret: 'sec_abc',
      tunnel_host: 'tunnel.example.test',
      tunnel_port: 2223
    })
    const step = await run()
    expect(step.env.SVC_TUNNEL_TOKEN).toBe('sec_abc')
    expect(step.env.SVC_TUNNEL_USER).toBe('cli-9')
    expect(step.masks).toContain('sec_abc')
    expect(step.outputs['project-slug']).toBe('web-shop')
  })

  it('appends /functions/v1 to a base URL with an empty path and keeps any other path as given', async () => {
    const rooted = nock(ORIGIN).post(PATH).reply(200, CREDENTIAL)
    await run({ ...INPUTS, 'base-url': 'https://credentials.example.test' })
    expect(rooted.isDone()).toBe(true)

    const custom = nock(ORIGIN).post('/api/creds/credential-provision').reply(200, CREDENTIAL)
    await run({ ...INPUTS, 'base-url': 'https://credentials.example.test/api/creds/' })
    expect(custom.isDone()).toBe(true)
  })
})

describe('main, service errors', () => {
  const cases: [number, string, RegExp][] = [
    [
      400,
      'BAD_REQUEST',
      /rejected the request as invalid \(400 BAD_REQUEST\)\. The service said: ttl too big\. Check input project, input environment and input ttl-minutes\./
    ],
    [
      401,
      'UNAUTHORIZED',
      /The API key was rejected \(401 UNAUTHORIZED\).*Check that the API key given is a current one/
    ],
    [403, 'FORBIDDEN', /not allowed.*\(403 FORBIDDEN\).*cicd:provision scope.*Developer plan/],
    [
      404,
      'NOT_FOUND',
      /Project "web-shop" was not found, or input base-url does not point at the credential service's API \(404 NOT_FOUND\).*register the project.*check that input base-url is the service's address with its \/functions\/v1 path/
    ]
  ]
  it.each(cases)('fails once, without retrying, on %i', async (status, code, message) => {
    const scope = nock(ORIGIN)
      .post(PATH)
      .reply(status, { error: status === 400 ? 'ttl too big' : 'no', code })
    const step = await run()
    expect(scope.isDone()).toBe(true)
    expect(step.failed).toBe(true)
    expect(step.errors).toHaveLength(1)
    expect(step.errors[0]).toMatch(message)
    expect(step.clock.sleeps).toEqual([])
    expect(step.env).toEqual({})
    expect(step.outputs).toEqual({})
    expect(step.saved).toEqual({})
  })

  it('waits out a short retry_after on 429, then succeeds', async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(429, { error: 'slow down', code: 'RATE_LIMIT', retry_after: 2 })
      .post(PATH)
      .reply(200, CREDENTIAL)
    const step = await run()
    expect(step.clock.sleeps).toEqual([2000])
    expect(step.failed).toBe(false)
    expect(step.infos).toContain(
      'Attempt 1 of 3 failed (HTTP 429 RATE_LIMIT: slow down); retrying in 2.0 s.'
    )
  })

  it('fails at once on a retry_after of an hour, saying when to re-run', async () => {
    nock(ORIGIN).post(PATH).reply(429, { error: 'limit', code: 'RATE_LIMIT', retry_after: 3600 })
    const step = await run(INPUTS, '2026-11-23T10:00:00Z')
    expect(step.clock.sleeps).toEqual([])
    expect(step.errors).toEqual([
      'Rate limited by the credential service (HTTP 429 RATE_LIMIT: limit); credential-provision allows 60 requests per hour per API key. ' +
        'It asks to wait 3600 s, longer than this step waits (60 s), so it stopped instead of sleeping: ' +
        're-run the job after 2026-11-23T11:00:00Z (in 1 h), when the next provision is possible. ' +
        // This in-memory host has no run identity, so share is not offered.
        'One credential per run (input share) works on GitHub Actions and GitLab CI only; here, fewer jobs that provision in an hour stay under the limit.'
    ])
  })

  it('retries 5xx with growing backoff and reports the attempts made', async () => {
    const scope = nock(ORIGIN)
      .post(PATH)
      .times(3)
      .reply(503, { error: 'down', code: 'INTERNAL_ERROR' })
    const step = await run()
    expect(scope.isDone()).toBe(true)
    expect(step.clock.sleeps).toEqual([750, 1500])
    expect(step.errors).toEqual([
      "The credential service failed (503 INTERNAL_ERROR). The service said: down. This is on the service's side; re-run the job later. Gave up after 3 attempts (input max-attempts)."
    ])
  })

  it('retries a network error, then succeeds', async () => {
    nock(ORIGIN)
      .post(PATH)
      .replyWithError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))
    nock(ORIGIN).post(PATH).reply(200, CREDENTIAL)
    const step = await run()
    expect(step.failed).toBe(false)
    expect(step.env.SVC_TUNNEL_USER).toBe('ab12c')
  })

  it('honours max-attempts', async () => {
    const scope = nock(ORIGIN).post(PATH).reply(500, {})
    const step = await run({ ...INPUTS, 'max-attempts': '1' })
    expect(scope.isDone()).toBe(true)
    expect(step.errors[0]).toMatch(/Gave up after 1 attempt \(input max-attempts\)\.$/)
  })
})
