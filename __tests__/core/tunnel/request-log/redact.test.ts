import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { HarWriter } from '../../../../src/core/tunnel/request-log/har-file.js'
import { makeRedactor, REDACTED } from '../../../../src/core/tunnel/request-log/redact.js'
import { aRecord, aTempDir, publicBaseUrl, readValidHar } from './records.js'

const GATE_SECRET = 'Zx9/Qw+Ab3_kLm-Pq7='
const TOKEN = 'tok_0123abcdef4567'
const API_KEY = 'key-\u00e4\u00f6-9876'
const SECRETS = [GATE_SECRET, TOKEN, API_KEY]

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

/** Every form in which a secret would still be readable in a file. */
function formsOf(secret: string): string[] {
  return [
    secret,
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, escape => escape.toLowerCase()),
    Buffer.from(secret).toString('base64').replace(/=+$/, ''),
    Buffer.from(secret).toString('base64url'),
    JSON.stringify(secret).slice(1, -1),
    secret.slice(0, -2)
  ]
}

/** A request that carries the secrets everywhere a client could put them. */
function leakyRecord() {
  return aRecord({
    method: 'POST',
    target: `/${GATE_SECRET}/hook/${encodeURIComponent(TOKEN)}?sig=${encodeURIComponent(GATE_SECRET).replace(/%[0-9A-F]{2}/g, e => e.toLowerCase())}&${API_KEY}`,
    requestHeaders: [
      ['authorization', basic('ci', GATE_SECRET)],
      ['Proxy-Authorization', `Bearer ${TOKEN}`],
      ['X-Forwarded-Auth', basic('user', GATE_SECRET)],
      ['X-Token', `Bearer ${TOKEN}`],
      ['X-Encoded', Buffer.from(API_KEY).toString('base64')],
      ['Cookie', 'session=abc'],
      ['X-Api-Key', 'not-a-run-secret'],
      ['Content-Type', 'application/json']
    ],
    responseHeaders: [
      ['Set-Cookie', 'id=1; HttpOnly'],
      ['Location', `/next?token=${TOKEN}`]
    ],
    requestBody: Buffer.from(JSON.stringify({ secret: GATE_SECRET, key: API_KEY, note: 'hello' })),
    // The body was cut by the HTTP layer in the middle of the token.
    responseBody: Buffer.from(`{"token":"${TOKEN.slice(0, 9)}`),
    bodyTruncated: { request: false, response: true }
  })
}

describe('redaction by default', () => {
  const redact = makeRedactor({ headers: 'redacted', logBodies: false, secrets: [] })

  it('replaces the values of credential headers, whatever their case, and keeps the others', () => {
    const { requestHeaders, responseHeaders } = redact(leakyRecord())
    expect(Object.fromEntries(requestHeaders)).toMatchObject({
      authorization: REDACTED,
      'Proxy-Authorization': REDACTED,
      Cookie: REDACTED,
      'X-Api-Key': REDACTED,
      'Content-Type': 'application/json'
    })
    expect(Object.fromEntries(responseHeaders)['Set-Cookie']).toBe(REDACTED)
  })

  it('replaces the value of every query parameter, and a parameter without a value whole', () => {
    expect(redact(aRecord({ target: '/search?q=cats&page=2&&flag&x=' })).target).toBe(
      `/search?q=${REDACTED}&page=${REDACTED}&&${REDACTED}&x=${REDACTED}`
    )
    expect(redact(aRecord({ target: '/plain' })).target).toBe('/plain')
  })

  it('keeps no body unless bodies are logged', () => {
    const redacted = redact(leakyRecord())
    expect(redacted.requestBody).toBeUndefined()
    expect(redacted.responseBody).toBeUndefined()
  })

  it('does not touch the caller’s record', () => {
    const record = leakyRecord()
    redact(record)
    expect(record.requestHeaders[0][1]).toBe(basic('ci', GATE_SECRET))
  })
})

describe('the run’s secrets', () => {
  const redact = makeRedactor({ headers: 'unredacted', logBodies: true, secrets: SECRETS })

  it('are removed even with headers unredacted, in every form a client may send them', () => {
    const redacted = redact(leakyRecord())
    const text = JSON.stringify({
      ...redacted,
      requestBody: redacted.requestBody?.toString('latin1'),
      responseBody: redacted.responseBody?.toString('latin1')
    })
    for (const secret of SECRETS) {
      for (const form of formsOf(secret)) expect(text).not.toContain(form)
    }
    for (const secret of SECRETS.map(s => Buffer.from(s).toString('latin1'))) {
      expect(text).not.toContain(secret)
    }
    expect(redacted.target.startsWith(`/${REDACTED}/hook/${REDACTED}?sig=${REDACTED}`)).toBe(true)
  })

  it('leave what is not a secret as it was: unredacted headers, query values, body text', () => {
    const redacted = redact(leakyRecord())
    const headers = Object.fromEntries(redacted.requestHeaders)
    expect(headers.Cookie).toBe('session=abc')
    expect(headers['X-Api-Key']).toBe('not-a-run-secret')
    expect(headers.authorization).toBe(`Basic ${REDACTED}`)
    expect(JSON.parse(redacted.requestBody!.toString())).toEqual({
      secret: REDACTED,
      key: REDACTED,
      note: 'hello'
    })
    expect(redacted.responseBody!.toString()).toBe(`{"token":"${REDACTED}`)
  })

  it('hide a Basic credential that holds one as its user name, or in latin1, and no other', () => {
    const latin1Basic = `Basic ${Buffer.from(`ci:${API_KEY}`, 'latin1').toString('base64')}`
    const someoneElse = basic('alice', 'correct horse')
    const redacted = redact(
      aRecord({
        requestHeaders: [
          ['Authorization', basic(TOKEN, 'x-oauth-basic')],
          ['Proxy-Authorization', latin1Basic],
          ['X-Upstream-Auth', someoneElse]
        ]
      })
    )
    expect(redacted.requestHeaders).toEqual([
      ['Authorization', `Basic ${REDACTED}`],
      ['Proxy-Authorization', `Basic ${REDACTED}`],
      ['X-Upstream-Auth', someoneElse]
    ])
  })

  it('cut only a body the HTTP layer cut: a whole body may end like a secret starts', () => {
    // `tok_01` is how TOKEN starts, but in a body sent whole it is the body's own text.
    const body = Buffer.from('{"next":"tok_01')
    const redacted = redact(aRecord({ requestBody: body, responseBody: body }))
    expect(redacted.requestBody!.toString()).toBe('{"next":"tok_01')
    expect(redacted.responseBody!.toString()).toBe('{"next":"tok_01')
    const stated = redact(
      aRecord({
        requestBody: body,
        responseBody: body,
        bodyTruncated: { request: false, response: true }
      })
    )
    expect(stated.requestBody!.toString()).toBe('{"next":"tok_01')
    expect(stated.responseBody!.toString()).toBe(`{"next":"${REDACTED}`)
  })

  it('an empty secret in the list hides nothing', () => {
    const redacted = makeRedactor({ headers: 'unredacted', logBodies: false, secrets: [''] })(
      aRecord({ target: '/a?b=c' })
    )
    expect(redacted.target).toBe('/a?b=c')
  })
})

describe('the files written', () => {
  it.each(['redacted', 'unredacted'] as const)(
    'hold none of the secrets in any form, headers %s',
    async headers => {
      const dir = aTempDir()
      const paths = ['requests.har', 'requests.ndjson', 'tally.json'].map(name => join(dir, name))
      const writer = await HarWriter.open({
        harPath: paths[0],
        spoolPath: paths[1],
        tallyPath: paths[2],
        publicBaseUrl,
        creatorVersion: '1.0.0',
        redaction: { headers, logBodies: true, secrets: SECRETS }
      })
      for (let n = 0; n < 5; n++) writer.record(leakyRecord())
      await writer.flush()
      const written = paths.map(path => readFileSync(path, 'latin1'))
      await writer.close()
      written.push(readFileSync(paths[0], 'latin1'))
      for (const text of written) {
        for (const secret of SECRETS) {
          for (const form of formsOf(secret)) expect(text).not.toContain(form)
          expect(text).not.toContain(Buffer.from(secret).toString('latin1'))
        }
      }
      const har = await readValidHar(paths[0])
      expect(har.log.entries).toHaveLength(5)
    }
  )
})
