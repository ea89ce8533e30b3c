import { tmpdir } from 'node:os'
import nock from 'nock'
import {
  API_KEY,
  BASE_URL,
  fakeClock,
  linesLeaking,
  runInProcess
} from '../helpers/in-process-step.js'
import { useNock } from '../helpers/nock-lifecycle.js'

// nock must patch http before @actions/http-client loads.
const { runMain } = await import('../helpers/github-steps.js')

const ORIGIN = 'https://credentials.example.test'
const PATH = '/functions/v1/credential-provision'
const REVOKE = '/functions/v1/revoke-token'
const TOKEN = 'tok_3f9a8b7c6d5e4f3a2b1c'
const CREDENTIAL = {
  token: TOKEN,
  tunnel_user: 'ab12c',
  client_id: 'client-77',
  expires_at: '2026-11-23T11:00:00Z',
  ttl_minutes: 60,
  tunnel_host: 'tunnel.example.test',
  tunnel_port: 2223,
  project_slug: 'web-shop'
}
const INPUTS = { 'api-key': API_KEY, project: 'web-shop', 'base-url': BASE_URL }

useNock(nock)

function run(
  inputs: Record<string, string> = INPUTS,
  clock = fakeClock(),
  env?: Record<string, string>
) {
  return runInProcess(() => runMain(clock), inputs, { env })
}

describe('main step, happy path', () => {
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
    expect(JSON.parse(step.state.credential)).toEqual({
      kind: 'cicd',
      tunnelUser: 'ab12c',
      baseUrl: BASE_URL,
      expiresAt: '2026-11-23T11:00:00Z'
    })
    expect(step.summary).toContain('<td>staging</td>')
    expect(step.summary).toContain('<td>ab12c</td>')
    expect(step.summary).not.toContain(TOKEN)
    expect(step.lines).toContain(
      'Provisioned tunnel user ab12c for tunnel.example.test:2223, valid until 2026-11-23T11:00:00Z. Exported SVC_TUNNEL_TOKEN, _USER, _HOST and _PORT.'
    )
  })

  it('masks the API key first and the token before any other line, and shows neither elsewhere', async () => {
    nock(ORIGIN).post(PATH).reply(200, CREDENTIAL)
    const step = await run(INPUTS, fakeClock(), { RUNNER_DEBUG: '1' })

    expect(step.lines[0]).toBe(`::add-mask::${API_KEY}`)
    expect(step.masks).toEqual([API_KEY, TOKEN])
    const tokenMask = step.lines.indexOf(`::add-mask::${TOKEN}`)
    const firstAboutCredential = step.lines.findIndex(line => line.includes('ab12c'))
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
    expect(defaulted.commands.filter(c => c.name === 'notice').map(c => c.message)).toEqual([
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

describe('main step, service errors', () => {
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
    const clock = fakeClock()
    const step = await run(INPUTS, clock)
    expect(scope.isDone()).toBe(true)
    expect(step.failed).toBe(true)
    expect(step.errors).toHaveLength(1)
    expect(step.errors[0]).toMatch(message)
    expect(clock.sleeps).toEqual([])
    expect(step.env).toEqual({})
    expect(step.outputs).toEqual({})
    expect(step.state).toEqual({ isPost: 'true' })
  })

  it('waits out a short retry_after on 429, then succeeds', async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(429, { error: 'slow down', code: 'RATE_LIMIT', retry_after: 2 })
      .post(PATH)
      .reply(200, CREDENTIAL)
    const clock = fakeClock()
    const step = await run(INPUTS, clock)
    expect(clock.sleeps).toEqual([2000])
    expect(step.failed).toBe(false)
    expect(step.lines).toContain(
      'Attempt 1 of 3 failed (HTTP 429 RATE_LIMIT: slow down); retrying in 2.0 s.'
    )
  })

  it('fails at once on a retry_after of an hour, saying when to re-run', async () => {
    nock(ORIGIN).post(PATH).reply(429, { error: 'limit', code: 'RATE_LIMIT', retry_after: 3600 })
    const clock = fakeClock('2026-11-23T10:00:00Z')
    const step = await run(INPUTS, clock)
    expect(clock.sleeps).toEqual([])
    expect(step.errors).toEqual([
      'Rate limited by the credential service (HTTP 429 RATE_LIMIT: limit); credential-provision allows 60 requests per hour per API key. ' +
        'It asks to wait 3600 s, longer than this step waits (60 s), so it stopped instead of sleeping: re-run the job after 2026-11-23T11:00:00.000Z.'
    ])
  })

  it('retries 5xx with growing backoff and reports the attempts made', async () => {
    const scope = nock(ORIGIN)
      .post(PATH)
      .times(3)
      .reply(503, { error: 'down', code: 'INTERNAL_ERROR' })
    const clock = fakeClock()
    const step = await run(INPUTS, clock)
    expect(scope.isDone()).toBe(true)
    expect(clock.sleeps).toEqual([750, 1500])
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

describe('main step, hostile or broken responses', () => {
  const hostile: [string, unknown, RegExp][] = [
    [
      'a host holding a newline and a second variable',
      { ...CREDENTIAL, tunnel_host: 'evil.test\nEVIL=1' },
      /tunnel_host is not a bare hostname/
    ],
    [
      'a host with a scheme',
      { ...CREDENTIAL, tunnel_host: 'ssh://tunnel.example.test' },
      /tunnel_host is not a bare hostname/
    ],
    [
      'a token with a space',
      { ...CREDENTIAL, token: 'tok_abc def' },
      /token holds whitespace or control characters/
    ],
    [
      'a user with a newline',
      { ...CREDENTIAL, tunnel_user: 'ab\nEVIL=1' },
      /tunnel_user holds whitespace/
    ],
    ['a missing token', { ...CREDENTIAL, token: undefined }, /token is missing/],
    ['a numeric token', { ...CREDENTIAL, token: 42 }, /token is not a string/],
    [
      'a port out of range',
      { ...CREDENTIAL, tunnel_port: 70000 },
      /tunnel_port is not a whole number from 1 to 65535/
    ],
    [
      'a bad expiry',
      { ...CREDENTIAL, expires_at: 'tomorrow' },
      /expires_at is not an ISO 8601 time/
    ],
    ['a list instead of an object', [CREDENTIAL], /the body is not a JSON object/],
    [
      'a missing host',
      { ...CREDENTIAL, tunnel_host: undefined },
      /tunnel_host is missing; set the tunnel-host input/
    ]
  ]
  // An answer that names a user means the service issued a credential: main revokes it at once,
  // and clears the state it saved for post.
  const issuedUser = (body: unknown) => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined
    const user = (body as Record<string, unknown>).tunnel_user
    return typeof user === 'string' && user !== '' ? user : undefined
  }
  it.each(hostile)('rejects %s and writes nothing', async (_name, body, message) => {
    nock(ORIGIN)
      .post(PATH)
      .reply(200, body as nock.Body)
    const revokes: unknown[] = []
    nock(ORIGIN)
      .post(REVOKE, sent => (revokes.push(sent), true))
      .optionally()
      .reply(200, { success: true })
    const step = await run()
    expect(step.failed).toBe(true)
    expect(step.errors).toHaveLength(1)
    expect(step.errors[0]).toMatch(message)
    expect(step.errors[0]).toMatch(/Nothing was exported\./)
    expect(step.env).toEqual({})
    expect(step.outputs).toEqual({})
    expect(step.errors[0]).not.toContain('EVIL')
    const user = issuedUser(body)
    if (user !== undefined) {
      expect(revokes).toEqual([{ tunnel_user: user }])
      expect(step.state).toEqual({ isPost: 'true', credential: '' })
    } else {
      expect(revokes).toEqual([])
      expect(step.state).toEqual({ isPost: 'true' })
    }
  })

  it('masks a malformed token before failing, so it never shows', async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(200, { ...CREDENTIAL, token: 'tok_abc def' })
    const step = await run()
    expect(step.masks).toContain('tok_abc def')
    expect(linesLeaking(step, 'tok_abc def')).toEqual([])
  })

  it('refuses a 10 MB body without reading it all', async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(200, 'x'.repeat(10 * 1024 * 1024))
    const step = await run()
    expect(step.errors[0]).toMatch(
      /sent an unusable answer to credential-provision: a response body larger than 1024 KiB/
    )
    expect(step.env).toEqual({})
  })

  it('names a body that is not JSON, showing it only when short', async () => {
    nock(ORIGIN).post(PATH).reply(200, '<html>login</html>')
    const short = await run()
    expect(short.errors[0]).toMatch(/HTTP 200 with a body that is not JSON \(18 bytes, not shown\)/)

    nock(ORIGIN)
      .post(PATH)
      .reply(200, `<html>${'a'.repeat(500)}</html>`)
    const long = await run()
    expect(long.errors[0]).toMatch(/not JSON \(513 bytes, not shown\)/)
  })

  it('shows an error body that is not JSON only when short', async () => {
    nock(ORIGIN).post(PATH).reply(502, 'Bad Gateway')
    const step = await run({ ...INPUTS, 'max-attempts': '1' })
    expect(step.errors[0]).toMatch(/^The credential service failed \(502\)\./)
  })
})

describe('main step, inputs', () => {
  const bad: [string, Record<string, string>, RegExp][] = [
    [
      'an empty api-key',
      { 'api-key': '' },
      /Input api-key is empty, and input credential is "cicd".*forks and Dependabot.*Set input credential to auto/
    ],
    [
      'a malformed api-key',
      { 'api-key': 'sk_short' },
      /Input api-key is not an API key: expected sk_ followed by 64 hexadecimal characters/
    ],
    ['an empty project', { project: '' }, /Input project is empty/],
    [
      'a fail-on-revoke-error that only post reads',
      { 'fail-on-revoke-error': 'yes' },
      /Input fail-on-revoke-error is "yes": expected true or false\./
    ],
    [
      'a ttl-minutes of zero',
      { 'ttl-minutes': '0' },
      /Input ttl-minutes is "0": expected a whole number of at least 1\./
    ],
    ['a fractional ttl-minutes', { 'ttl-minutes': '1.5' }, /Input ttl-minutes is "1\.5"/],
    [
      'an unknown credential',
      { credential: 'gold' },
      /Input credential is "gold": expected one of cicd, free, auto, ssh-key or existing\./
    ],
    ['a lower-case env-prefix', { 'env-prefix': 'svc' }, /Input env-prefix is "svc"/],
    [
      'an http base-url off this machine',
      { 'base-url': 'http://credentials.example.test' },
      /Input base-url is "http:\/\/credentials\.example\.test": it must use https/
    ],
    ['an empty base-url', { 'base-url': '' }, /Input base-url is empty/],
    [
      'a base-url that is not a URL',
      { 'base-url': 'credentials' },
      /Input base-url is "credentials": not a URL/
    ],
    [
      'a base-url with a password',
      { 'base-url': 'https://u:p@credentials.example.test' },
      /holds a user name or password/
    ],
    [
      'a base-url with a query',
      { 'base-url': 'https://credentials.example.test/?a=1' },
      /remove the query string/
    ],
    [
      'a max-attempts of 11',
      { 'max-attempts': '11' },
      /Input max-attempts is "11": expected a whole number from 1 to 10\./
    ],
    [
      'a revoke that is not a boolean',
      { revoke: 'yes' },
      /Input revoke is "yes": expected true or false\./
    ],
    ['a tunnel-host with a path', { 'tunnel-host': 'host/x' }, /Input tunnel-host is "host\/x"/],
    [
      'a tunnel-port of 0',
      { 'tunnel-port': '0' },
      /Input tunnel-port is "0": expected a whole number from 1 to 65535\./
    ]
  ]
  it.each(bad)(
    'fails on %s, naming the input, and sends nothing',
    async (_name, change, message) => {
      const step = await run({ ...INPUTS, ...change })
      expect(step.failed).toBe(true)
      expect(step.errors).toHaveLength(1)
      expect(step.errors[0]).toMatch(message)
      expect(nock.pendingMocks()).toEqual([])
      expect(step.env).toEqual({})
      expect(step.outputs).toEqual({})
    }
  )

  it('never quotes a malformed api-key', async () => {
    const step = await run({ ...INPUTS, 'api-key': 'sk_not-really-a-key' })
    expect(step.masks).toEqual(['sk_not-really-a-key'])
    expect(linesLeaking(step, 'sk_not-really-a-key')).toEqual([])
  })

  it('accepts http for loopback hosts', async () => {
    const scope = nock('http://127.0.0.1:8787').post(PATH).reply(200, CREDENTIAL)
    const step = await run({ ...INPUTS, 'base-url': 'http://127.0.0.1:8787' })
    expect(scope.isDone()).toBe(true)
    expect(step.failed).toBe(false)
  })
})

describe('main step, free and auto credentials', () => {
  const FREE = {
    tunnel_client_id: 'free-1a2b',
    tunnel_client_secret: 'fsec_9z8y7x',
    expires_at: '2026-11-23T10:05:00Z',
    tunnel_host: 'tunnel.example.test',
    tunnel_port: 2223,
    limits: { max_uptime_minutes: 5, max_connections_per_hour: 10 }
  }

  it('creates a free credential without sending any key', async () => {
    const scope = nock(ORIGIN, { badheaders: ['x-api-key'] })
      .post('/functions/v1/create-ephemeral-token')
      .reply(200, FREE)
    const step = await run({ credential: 'free', 'base-url': BASE_URL, 'api-key': API_KEY })
    expect(scope.isDone()).toBe(true)
    expect(step.env).toEqual({
      SVC_TUNNEL_TOKEN: 'fsec_9z8y7x',
      SVC_TUNNEL_USER: 'free-1a2b',
      SVC_TUNNEL_HOST: 'tunnel.example.test',
      SVC_TUNNEL_PORT: '2223'
    })
    expect(step.outputs.credential).toBe('free')
    expect(step.outputs['project-slug']).toBe('')
    expect(JSON.parse(step.state.credential).kind).toBe('free')
    expect(step.masks).toContain('fsec_9z8y7x')
    expect(linesLeaking(step, 'fsec_9z8y7x')).toEqual([])
    expect(step.summary).toContain('free (5 minutes, not revocable)')
  })

  it('falls back to free with a warning when auto has no key', async () => {
    nock(ORIGIN).post('/functions/v1/create-ephemeral-token').reply(200, FREE)
    const step = await run({ credential: 'auto', 'base-url': BASE_URL, 'api-key': '' })
    expect(step.warnings).toEqual([
      'Input api-key is empty, so input credential auto falls back to a free 5-minute credential. This is expected where the CI system withholds secrets (on GitHub, pull requests from forks and Dependabot runs).'
    ])
    expect(step.outputs.credential).toBe('free')
  })

  it('provisions cicd when auto has a key', async () => {
    const scope = nock(ORIGIN).post(PATH).reply(200, CREDENTIAL)
    const step = await run({ ...INPUTS, credential: 'auto' })
    expect(scope.isDone()).toBe(true)
    expect(step.warnings).toEqual([])
    expect(step.outputs.credential).toBe('cicd')
  })

  it('explains the free endpoint rate limit', async () => {
    nock(ORIGIN)
      .post('/functions/v1/create-ephemeral-token')
      .reply(429, { error: 'limit', code: 'RATE_LIMIT', retry_after: 1800 })
    const step = await run({ credential: 'free', 'base-url': BASE_URL })
    expect(step.errors[0]).toMatch(
      /create-ephemeral-token allows 10 requests per hour per IP address/
    )
  })
})

describe('main step, inputs that could start a log line', () => {
  const lineBreaks: [string, string, string, string][] = [
    [
      'environment',
      'staging\n::stop-commands::x',
      'staging\\u000a::stop-commands::x',
      'U+000A at character 8'
    ],
    [
      'environment',
      'staging\r::stop-commands::x',
      'staging\\u000d::stop-commands::x',
      'U+000D at character 8'
    ],
    [
      'project',
      'web-shop\u2028::stop-commands::x',
      'web-shop\\u2028::stop-commands::x',
      'U+2028 at character 9'
    ],
    ['project', 'web-shop\u2029x', 'web-shop\\u2029x', 'U+2029 at character 9'],
    ['environment', 'staging\u0085x', 'staging\\u0085x', 'U+0085 at character 8']
  ]
  it.each(lineBreaks)(
    'rejects a line break in %s, quoting it escaped, and sends nothing',
    async (name, value, shown, where) => {
      const [code, at] = where.split(' at ')
      const step = await run({ ...INPUTS, [name]: value })
      expect(step.failed).toBe(true)
      expect(step.errors).toEqual([
        `Input ${name} is "${shown}": it holds a line break (${code}) at ${at}. Set it to a single line of plain text.`
      ])
      expect(step.lines.filter(line => line.startsWith('::stop-commands'))).toEqual([])
      expect(step.masks).toEqual([API_KEY])
    }
  )
})

describe('main step, a credential issued and then refused', () => {
  const BAD_HOST = { ...CREDENTIAL, tunnel_host: undefined }

  it('revokes it at once, and post has nothing left to do', async () => {
    nock(ORIGIN).post(PATH).reply(200, BAD_HOST)
    const revoke = nock(ORIGIN, { reqheaders: { 'x-api-key': API_KEY } })
      .post(REVOKE, { tunnel_user: 'ab12c' })
      .reply(200, { success: true })
    const step = await run()
    expect(revoke.isDone()).toBe(true)
    expect(step.errors).toHaveLength(1)
    expect(step.errors[0]).toMatch(/tunnel_host is missing/)
    expect(step.lines).toContain(
      'Revoked the credential of tunnel user ab12c, which this step could not use.'
    )
    expect(step.state.credential).toBe('')
    expect(linesLeaking(step, TOKEN)).toEqual([])
  })

  it('leaves state that makes post revoke it, even with revoke: false, when the revoke fails', async () => {
    nock(ORIGIN).post(PATH).reply(200, BAD_HOST)
    nock(ORIGIN).post(REVOKE).reply(403, { error: 'no', code: 'FORBIDDEN' })
    const main = await run({ ...INPUTS, revoke: 'false' })
    expect(main.errors).toHaveLength(1)
    expect(
      main.lines.some(line =>
        /^Could not revoke .* ab12c yet .*revoking when the job ends tries/.test(line)
      )
    ).toBe(true)
    expect(JSON.parse(main.state.credential)).toMatchObject({ tunnelUser: 'ab12c', rejected: true })

    const { runPost } = await import('../helpers/github-steps.js')
    const revoke = nock(ORIGIN).post(REVOKE, { tunnel_user: 'ab12c' }).reply(200, {})
    const post = await runInProcess(
      () => runPost(fakeClock()),
      { ...INPUTS, revoke: 'false' },
      { state: main.state }
    )
    expect(revoke.isDone()).toBe(true)
    expect(post.lines).toContain('Revoked the tunnel token of user ab12c.')
  })

  it('revokes it when writing the runner files fails', async () => {
    nock(ORIGIN).post(PATH).reply(200, CREDENTIAL)
    const revoke = nock(ORIGIN).post(REVOKE, { tunnel_user: 'ab12c' }).reply(204)
    // A directory where the env file should be: appending to it fails.
    const step = await run(INPUTS, fakeClock(), { GITHUB_ENV: tmpdir() })
    expect(revoke.isDone()).toBe(true)
    expect(step.failed).toBe(true)
    expect(step.errors).toHaveLength(1)
    expect(step.state.credential).toBe('')
    expect(linesLeaking(step, TOKEN)).toEqual([])
  })

  it('revokes the user of an answer whose token fails its own checks', async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(200, { ...CREDENTIAL, token: 'tok_\ud800' })
    const revoke = nock(ORIGIN).post(REVOKE, { tunnel_user: 'ab12c' }).reply(200, {})
    const step = await run()
    expect(step.errors[0]).toMatch(/token is not well-formed Unicode/)
    expect(revoke.isDone()).toBe(true)
    expect(step.state).toEqual({ isPost: 'true', credential: '' })
  })
})

describe('main step, answers that used to break it', () => {
  it('rejects a tunnel user holding an unpaired surrogate', async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(200, `{"token":"${TOKEN}","tunnel_user":"ab\\udc00c","tunnel_host":"h.test"}`)
    const step = await run()
    expect(step.errors).toHaveLength(1)
    expect(step.errors[0]).toMatch(/tunnel_user is not well-formed Unicode/)
    expect(step.env).toEqual({})
  })

  it('never shows any part of a 2xx answer cut short', async () => {
    const cut = JSON.stringify(CREDENTIAL).slice(0, 60)
    expect(cut).toContain(TOKEN)
    nock(ORIGIN).post(PATH).reply(200, cut)
    const step = await run()
    expect(step.errors).toEqual([
      'The credential service at https://credentials.example.test/functions/v1 sent an unusable answer to credential-provision: HTTP 200 with a body that is not JSON (60 bytes, not shown). Check that input base-url points at the credential service (its path usually ends in /functions/v1).'
    ])
    expect(step.lines.filter(line => line.includes('tok_'))).toEqual([])
  })

  it('hides credential-shaped runs in a short error body', async () => {
    nock(ORIGIN)
      .post(PATH)
      .twice()
      .reply(502, `{"token":"${TOKEN}","k":"${'ab12'.repeat(8)}"`)
    const step = await run({ ...INPUTS, 'max-attempts': '2' })
    expect(step.lines).toContain(
      'Attempt 1 of 2 failed (HTTP 502 (body: {"token":"***","k":"***")); retrying in 0.8 s.'
    )
    expect(step.lines.filter(line => line.includes('tok_') || line.includes('ab12ab12'))).toEqual(
      []
    )
  })

  it.each([
    ['a retry_after of 1e13 in the body', { retry_after: 1e13 }, {}],
    ['a Retry-After header of 99999999999999', {}, { 'retry-after': '99999999999999' }]
  ])('fails with one clear error on %s', async (_name, extra, headers) => {
    nock(ORIGIN)
      .post(PATH)
      .reply(429, { error: 'limit', code: 'RATE_LIMIT', ...extra }, headers)
    const clock = fakeClock()
    const step = await run(INPUTS, clock)
    expect(clock.sleeps).toEqual([])
    expect(step.errors).toHaveLength(1)
    expect(step.errors[0]).toMatch(/so it stopped instead of sleeping: re-run the job later\.$/)
  })

  it('honours a Retry-After given as an HTTP date', async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(429, {}, { 'retry-after': 'Mon, 23 Nov 2026 10:00:20 GMT' })
      .post(PATH)
      .reply(200, CREDENTIAL)
    const clock = fakeClock('2026-11-23T10:00:00Z')
    const step = await run(INPUTS, clock)
    expect(clock.sleeps).toEqual([20_000])
    expect(step.failed).toBe(false)
  })

  it('appends /functions/v1 to a base-url whose path is only slashes', async () => {
    const scope = nock(ORIGIN).post(PATH).reply(200, CREDENTIAL)
    const step = await run({ ...INPUTS, 'base-url': 'https://credentials.example.test//' })
    expect(scope.isDone()).toBe(true)
    expect(step.failed).toBe(false)
  })
})

describe('main step, gaps the property-based suite found', () => {
  const legacyCommands = (lines: string[]) => lines.filter(line => line.includes('##['))
  const tokenParts = (lines: string[]) =>
    lines.filter(line => line !== `::add-mask::${TOKEN}` && /tok_|3f9a8b7c|b7c6d5e4/.test(line))

  it("hides a token the service echoes in a non-2xx answer's error", async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(301, { error: `=token ${TOKEN} refused` })
    const step = await run()
    expect(step.errors).toEqual([
      'The credential service answered credential-provision with an unexpected status (301). The service said: =token *** refused. Check input base-url.'
    ])
    expect(tokenParts(step.lines)).toEqual([])
  })

  it("hides a token the service echoes in a retried answer's code", async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(408, { code: `invalid token ${TOKEN}` })
      .post(PATH)
      .reply(200, CREDENTIAL)
    const step = await run()
    expect(step.lines).toContain(
      'Attempt 1 of 3 failed (HTTP 408 invalid token ***); retrying in 0.8 s.'
    )
    expect(tokenParts(step.lines)).toEqual([])
  })

  it('escapes ##[ in what the service said, so the runner does not stop reading commands', async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(500, { error: '##[stop-commands]p' })
      .post(PATH)
      .reply(200, CREDENTIAL)
    const step = await run()
    expect(step.lines).toContain(
      'Attempt 1 of 3 failed (HTTP 500: \\u0023#[stop-commands]p); retrying in 0.8 s.'
    )
    expect(legacyCommands(step.lines)).toEqual([])
  })

  it.each(['project', 'environment'])('refuses ##[ in %s and sends nothing', async name => {
    const step = await run({ ...INPUTS, [name]: '##[add-mask]xstaging' })
    expect(step.errors).toEqual([
      `Input ${name} is "\\u0023#[add-mask]xstaging": it holds "#" followed by "#[", which the log reader of a CI system obeys as a command anywhere in a line. Remove it.`
    ])
    expect(legacyCommands(step.lines)).toEqual([])
  })

  it('refuses a tunnel user holding ##[, revokes it, and prints it escaped', async () => {
    const user = 'ab12c##[add-mask]x'
    nock(ORIGIN)
      .post(PATH)
      .reply(200, { ...CREDENTIAL, tunnel_user: user })
    nock(ORIGIN).post(REVOKE, { tunnel_user: user }).reply(500, { error: 'down' })
    const step = await run({ ...INPUTS, 'max-attempts': '1' })
    expect(step.errors).toHaveLength(1)
    expect(step.errors[0]).toMatch(/tunnel_user holds a log command marker/)
    expect(step.env).toEqual({})
    expect(JSON.parse(step.state.credential)).toMatchObject({ tunnelUser: user, rejected: true })
    expect(
      step.lines.some(line =>
        line.startsWith(
          'Could not revoke the credential of tunnel user ab12c\\u0023#[add-mask]x yet'
        )
      )
    ).toBe(true)
    expect(legacyCommands(step.lines)).toEqual([])

    const { runPost } = await import('../helpers/github-steps.js')
    nock(ORIGIN).post(REVOKE, { tunnel_user: user }).reply(200, {})
    const post = await runInProcess(() => runPost(fakeClock()), INPUTS, { state: step.state })
    expect(post.lines).toContain('Revoked the tunnel token of user ab12c\\u0023#[add-mask]x.')
    expect(legacyCommands(post.lines)).toEqual([])
  })

  it('refuses a token sent again as the tunnel user, revokes it at once, and never saves or prints it', async () => {
    const { tunnel_user: _user, ...rest } = CREDENTIAL
    nock(ORIGIN)
      .post(PATH)
      .reply(200, { ...rest, tunnel_client_id: TOKEN })
    const revoke = nock(ORIGIN).post(REVOKE, { tunnel_user: TOKEN }).reply(200, {})
    const step = await run()
    expect(revoke.isDone()).toBe(true)
    expect(step.errors).toEqual([expect.stringContaining('tunnel_user holds the token')])
    expect(step.env).toEqual({})
    expect(step.outputs).toEqual({})
    expect(step.summary).toBe('')
    expect(step.lines).toContain(
      'Revoked the credential of a tunnel user that holds the token, which this step could not use.'
    )
    expect(Object.values(step.state).filter(value => value.includes(TOKEN))).toEqual([])
    expect(linesLeaking(step, TOKEN)).toEqual([])
  })

  it('says a token-holding user it could not revoke stays valid, since it cannot be saved', async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(200, { ...CREDENTIAL, tunnel_user: `u${TOKEN}` })
    nock(ORIGIN).post(REVOKE).reply(403, { error: 'no', code: 'FORBIDDEN' })
    const step = await run()
    expect(step.errors).toHaveLength(1)
    expect(step.warnings).toEqual([
      expect.stringMatching(
        /^Could not revoke the credential of a tunnel user that holds the token \(.*\)\. It cannot be saved for revoking when the job ends, so it stays valid until it expires\.$/
      )
    ])
    expect(step.state).toEqual({ isPost: 'true' })
    expect(linesLeaking(step, TOKEN)).toEqual([])
  })

  it('refuses a tunnel user that is the token with one character slipped in, and never prints it', async () => {
    const user = 't=ok_3f9a8b7c6d5e4f3a2b1c'
    const { tunnel_user: _user, ...rest } = CREDENTIAL
    nock(ORIGIN)
      .post(PATH)
      .reply(200, { ...rest, tunnel_client_id: user })
    const revoke = nock(ORIGIN).post(REVOKE, { tunnel_user: user }).reply(200, {})
    const step = await run()
    expect(revoke.isDone()).toBe(true)
    expect(step.errors).toEqual([
      expect.stringContaining('tunnel_user holds the token, or a long piece of it')
    ])
    expect(tokenParts(step.lines)).toEqual([])
    expect(step.state).toEqual({ isPost: 'true', credential: '' })
  })

  it('refuses a token sent again as the client id, and revokes the user', async () => {
    const { client_id: _id, ...rest } = CREDENTIAL
    nock(ORIGIN)
      .post(PATH)
      .reply(200, { ...rest, tunnel_client_id: TOKEN })
    const revoke = nock(ORIGIN).post(REVOKE, { tunnel_user: 'ab12c' }).reply(200, {})
    const step = await run()
    expect(revoke.isDone()).toBe(true)
    expect(step.errors).toEqual([expect.stringContaining('client_id holds the token')])
    expect(step.outputs).toEqual({})
    expect(linesLeaking(step, TOKEN)).toEqual([])
  })
})
