/**
 * What main does with an answer it cannot use: it fails with one message that names the field,
 * hands nothing over, revokes a credential the service issued, and never shows a secret or a log
 * command marker from the answer. Through the in-memory host.
 */
import nock from 'nock'
import { linesLeaking, provisionWith } from '../helpers/memory-step.js'
import { useNock } from '../helpers/nock-lifecycle.js'
import { ORIGIN, PATH, REVOKE, TOKEN, CREDENTIAL, INPUTS } from '../helpers/provision-answer.js'

useNock(nock)

const run = (inputs: Record<string, string> = INPUTS) => provisionWith(inputs)

describe('main, hostile or broken responses', () => {
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
      expect(step.saved).toEqual({ credential: '' })
    } else {
      expect(revokes).toEqual([])
      expect(step.saved).toEqual({})
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

describe('main, answers that used to break it', () => {
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
    expect(step.infos).toContain(
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
    const step = await run()
    expect(step.clock.sleeps).toEqual([])
    expect(step.errors).toHaveLength(1)
    expect(step.errors[0]).toMatch(
      /so it stopped instead of sleeping: re-run the job later, when the next provision is possible\. /
    )
  })

  it('honours a Retry-After given as an HTTP date', async () => {
    nock(ORIGIN)
      .post(PATH)
      .reply(429, {}, { 'retry-after': 'Mon, 23 Nov 2026 10:00:20 GMT' })
      .post(PATH)
      .reply(200, CREDENTIAL)
    const step = await provisionWith(INPUTS, { now: '2026-11-23T10:00:00Z' })
    expect(step.clock.sleeps).toEqual([20_000])
    expect(step.failed).toBe(false)
  })

  it('appends /functions/v1 to a base-url whose path is only slashes', async () => {
    const scope = nock(ORIGIN).post(PATH).reply(200, CREDENTIAL)
    const step = await run({ ...INPUTS, 'base-url': 'https://credentials.example.test//' })
    expect(scope.isDone()).toBe(true)
    expect(step.failed).toBe(false)
  })
})
