/**
 * How main reads its options: a bad one fails the step, naming it, before any request; the free
 * and auto credentials; and options that could start a log line. Through the in-memory host,
 * with options named as the action names its inputs.
 */
import nock from 'nock'
import { API_KEY, BASE_URL } from '../helpers/in-process-step.js'
import { linesLeaking, provisionWith } from '../helpers/memory-step.js'
import { useNock } from '../helpers/nock-lifecycle.js'
import { ORIGIN, PATH, CREDENTIAL, INPUTS } from '../helpers/provision-answer.js'

useNock(nock)

const run = (inputs: Record<string, string> = INPUTS) => provisionWith(inputs)

describe('main, inputs', () => {
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

describe('main, free and auto credentials', () => {
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
    expect(JSON.parse(step.saved.credential).kind).toBe('free')
    expect(step.masks).toContain('fsec_9z8y7x')
    expect(linesLeaking(step, 'fsec_9z8y7x')).toEqual([])
    expect(step.cells).toContain('free (5 minutes, not revocable)')
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

describe('main, inputs that could start a log line', () => {
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
