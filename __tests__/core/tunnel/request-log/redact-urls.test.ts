/**
 * One URL rule wherever the request log writes a URL: what the HAR file holds for a browser's
 * sub-request from a password-reset page (its Referer), an OAuth callback's redirect (Location,
 * and HAR's redirectURL), and a proxy request with user-info in its absolute-form target.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { HarWriter } from '../../../../src/core/tunnel/request-log/har-file.js'
import type { RequestRecord } from '../../../../src/core/tunnel/request-log/record.js'
import { makeRedactor } from '../../../../src/core/tunnel/request-log/redact.js'
import { aRecord, aTempDir, publicBaseUrl, readValidHar, type HarFile } from './records.js'

const RESET_TOKEN = 'rst_9f8e7d6c5b4a3210'
const OAUTH_CODE = 'oac_SplxlOBeZQQYbYS6WxSbIA'
const OAUTH_STATE = 'st_af0ifjsldkj'
const PROXY_PASSWORD = 'pw_Tr0ub4dor3'
const ACCESS_TOKEN = 'at_2YotnFZFEjr1zCsicMWpAA'

async function written(
  records: RequestRecord[],
  headers: 'redacted' | 'unredacted' = 'redacted'
): Promise<{ har: HarFile; text: string }> {
  const dir = aTempDir()
  const harPath = join(dir, 'requests.har')
  const writer = await HarWriter.open({
    harPath,
    spoolPath: join(dir, 'requests.spool'),
    publicBaseUrl,
    creatorVersion: 'test',
    redaction: { headers, logBodies: false, secrets: [] }
  })
  for (const record of records) writer.record(record)
  await writer.close()
  return { har: await readValidHar(harPath), text: readFileSync(harPath, 'utf8') }
}

const value = (headers: { name: string; value: string }[], name: string) =>
  headers.find(header => header.name.toLowerCase() === name.toLowerCase())?.value

/** A browser's sub-request from `/reset?token=…`, and the app's OAuth callback redirect. */
function browserRun(): RequestRecord[] {
  return [
    aRecord({
      target: '/static/app.css',
      requestHeaders: [
        ['Host', 'web-abc.tunnel.example'],
        ['Referer', `https://web-abc.tunnel.example/reset?token=${RESET_TOKEN}&lang=en`],
        ['Origin', 'https://web-abc.tunnel.example'],
        ['Accept', 'text/css,*/*;q=0.1']
      ]
    }),
    aRecord({
      target: `/oauth/callback?code=${OAUTH_CODE}&state=${OAUTH_STATE}`,
      status: 302,
      responseHeaders: [
        ['Location', `/welcome?code=${OAUTH_CODE}#access_token=${ACCESS_TOKEN}&token_type=bearer`],
        ['Link', `<https://web-abc.tunnel.example/next?state=${OAUTH_STATE}>; rel="next"`],
        ['Content-Type', 'text/html']
      ]
    }),
    aRecord({
      target: `http://proxyuser:${PROXY_PASSWORD}@internal.example:8080/admin?x=1`
    })
  ]
}

it('redacts query values in Referer, Location, redirectURL and a URL inside Link', async () => {
  const { har, text } = await written(browserRun())
  const [css, callback] = har.log.entries
  expect(value(css.request.headers, 'Referer')).toBe(
    'https://web-abc.tunnel.example/reset?token=REDACTED&lang=REDACTED'
  )
  expect(value(css.request.headers, 'Origin')).toBe('https://web-abc.tunnel.example')
  expect(value(callback.response.headers, 'Location')).toBe(
    '/welcome?code=REDACTED#access_token=REDACTED&token_type=REDACTED'
  )
  expect(callback.response.redirectURL).toBe(value(callback.response.headers, 'Location'))
  expect(value(callback.response.headers, 'Link')).toBe(
    '<https://web-abc.tunnel.example/next?state=REDACTED>; rel="next"'
  )
  expect(callback.request.url).toBe(
    'https://web-abc.tunnel.example/oauth/callback?code=REDACTED&state=REDACTED'
  )
  for (const secret of [RESET_TOKEN, OAUTH_CODE, OAUTH_STATE, ACCESS_TOKEN]) {
    expect(text).not.toContain(secret)
  }
})

it("redacts an absolute-form target's user-info whole, and keeps its host and path", async () => {
  const { har, text } = await written(browserRun())
  expect(har.log.entries[2].request.url).toBe(
    'http://REDACTED@internal.example:8080/admin?x=REDACTED'
  )
  expect(text).not.toContain(PROXY_PASSWORD)
  expect(text).not.toContain('proxyuser')
})

it('redacts user-info in any header value that carries a URL', async () => {
  const { har, text } = await written([
    aRecord({
      requestHeaders: [
        ['X-Forwarded-Url', `https://ci:${PROXY_PASSWORD}@web-abc.tunnel.example/`],
        ['Referer', `https://someone:${PROXY_PASSWORD}@web-abc.tunnel.example/page`]
      ],
      responseHeaders: [['Refresh', `0; url=https://u:${PROXY_PASSWORD}@elsewhere.example/x`]]
    })
  ])
  const [entry] = har.log.entries
  expect(value(entry.request.headers, 'X-Forwarded-Url')).toBe(
    'https://REDACTED@web-abc.tunnel.example/'
  )
  expect(value(entry.request.headers, 'Referer')).toBe(
    'https://REDACTED@web-abc.tunnel.example/page'
  )
  expect(value(entry.response.headers, 'Refresh')).toBe(
    '0; url=https://REDACTED@elsewhere.example/x'
  )
  expect(text).not.toContain(PROXY_PASSWORD)
})

it('keeps a fragment that is a place in the page, paths, and parameter names', async () => {
  const { har } = await written([
    aRecord({ status: 301, responseHeaders: [['Location', '/docs/guide#install']] })
  ])
  expect(har.log.entries[0].response.redirectURL).toBe('/docs/guide#install')
})

it('writes every URL as sent with log-headers: unredacted', async () => {
  const { har } = await written(browserRun(), 'unredacted')
  const [css, callback, proxied] = har.log.entries
  expect(value(css.request.headers, 'Referer')).toContain(RESET_TOKEN)
  expect(callback.response.redirectURL).toContain(OAUTH_CODE)
  expect(proxied.request.url).toContain(PROXY_PASSWORD)
})

describe('the value the log holds for a URL-valued header, in the edge forms', () => {
  const redact = makeRedactor({ headers: 'redacted', logBodies: false, secrets: [] })
  /** What the log writes for one response header with this value. */
  const logged = (name: string, sent: string): string =>
    redact(aRecord({ responseHeaders: [[name, sent]] })).responseHeaders[0][1]

  it.each([
    // A reference that is only a fragment or only a query: the value still goes.
    [`#access_token=${ACCESS_TOKEN}`, '#access_token=REDACTED'],
    [`?page=2&token=${RESET_TOKEN}`, '?page=REDACTED&token=REDACTED'],
    // Scheme-relative, as a CDN link is often written.
    [`//cdn:${PROXY_PASSWORD}@cdn.example/app.js`, '//REDACTED@cdn.example/app.js'],
    // Empty user-info is user-info all the same; a nameless parameter keeps its `=`.
    ['https://@web.example/', 'https://REDACTED@web.example/'],
    [`/search?=${RESET_TOKEN}`, '/search?=REDACTED'],
    // A path with `//` and `@` in it has no authority: the path is kept as it is.
    ['/files//me@example.com/report', '/files//me@example.com/report']
  ])('Location: %s is logged as %s', (sent, expected) => {
    expect(logged('Location', sent)).toBe(expected)
  })

  it('keeps the separators after each URL inside a value, once, and redacts its query', () => {
    expect(
      logged('X-Mirrors', `https://a.example/one, https://a.example/two?t=${RESET_TOKEN}.,`)
    ).toBe('https://a.example/one, https://a.example/two?t=REDACTED.,')
  })
})
