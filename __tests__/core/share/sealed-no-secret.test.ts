/**
 * Property: the sealed credential, which passes between jobs as an ordinary output and so reaches
 * the log unmasked, never holds the token or the API key, nor any 8 characters of either, in any
 * form the log masks (as is, base64 and base64url at every byte offset, URL-encoded,
 * JSON-escaped). Random tokens, API keys, bindings and answers; a fixed seed keeps `npm test`
 * repeatable (FUZZ_SEED, FUZZ_RUNS as for the fuzz suite). The sanity cases run the same property
 * over sealers that leak on purpose, so the property is shown to fail when it should.
 */
import fc from 'fast-check'
import { sealCredential, type ShareBinding } from '../../../src/core/share/sealed-credential.js'
import { findLeak, maskedForms } from '../../helpers/masked-forms.js'

const RUNS = Number(process.env.FUZZ_RUNS) || 200
const SEED = Number(process.env.FUZZ_SEED) || 20261123

// With what base64 and URLs hold besides letters and digits: the URL-encoded form then differs.
const TOKEN_CHARACTERS = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_+/=.~'
]
// No bias: fast-check's bias favours short and repetitive strings, and a token of one repeated
// letter would share 8 characters with a binding by chance, not by a leak.
const token = fc
  .noBias(fc.string({ unit: fc.constantFrom(...TOKEN_CHARACTERS), minLength: 16, maxLength: 48 }))
  .map(rest => `tok_${rest}`)
const apiKey = fc
  .noBias(fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }))
  .map(hex => `sk_${hex}`)
// Any text, JSON's special characters and non-ASCII included: the binding travels in clear.
const binding: fc.Arbitrary<ShareBinding> = fc.record({
  system: fc.constantFrom('github', 'gitlab'),
  repository: fc.string({ maxLength: 40 }),
  runId: fc.string({ maxLength: 20 }),
  project: fc.string({ maxLength: 40 })
})
// fc.domain() and fc.webUrl() take some 50 ms a value: a plain host name does here.
const hostName = fc
  .array(
    fc.string({
      unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'),
      minLength: 1,
      maxLength: 12
    }),
    { minLength: 1, maxLength: 4 }
  )
  .map(labels => labels.join('.'))
const answer = (tokenValue: string) =>
  fc.record({
    token: fc.constant(tokenValue),
    tunnel_user: fc.string({ minLength: 1, maxLength: 30 }),
    client_id: fc.string({ maxLength: 30 }),
    tunnel_host: hostName,
    tunnel_port: fc.integer({ min: 1, max: 65535 }),
    expires_at: fc.date({ noInvalidDate: true }).map(date => date.toISOString()),
    ttl_minutes: fc.integer({ min: 1, max: 1440 }),
    project_slug: fc.string({ maxLength: 40 }),
    base_url: hostName.map(host => `https://${host}/functions/v1`)
  })
const sealCase = fc
  .tuple(token, apiKey, binding)
  .chain(([tokenValue, key, bound]) =>
    answer(tokenValue).map(payload => ({ token: tokenValue, apiKey: key, binding: bound, payload }))
  )

type Sealer = (payload: { token: string }, apiKey: string, binding: ShareBinding) => string

function noSecretIn(seal: Sealer) {
  return fc.property(sealCase, ({ token: tokenValue, apiKey: key, binding: bound, payload }) => {
    const sealed = seal(payload, key, bound)
    const leak = findLeak(sealed, { token: tokenValue, 'API key': key })
    if (leak !== undefined) {
      throw new Error(
        `the sealed output holds "${leak.window}" of the ${leak.secret} (${leak.encoding})`
      )
    }
  })
}

it('never holds the token or the API key, or 8 characters of either, in any masked form', () => {
  fc.assert(noSecretIn(sealCredential), { seed: SEED, numRuns: RUNS })
})

describe('the property fails on a sealer that leaks', () => {
  /** Runs the property over `seal`: it must fail, and its own error must name the leak. */
  const failsWith = (seal: Sealer, pattern: RegExp) => {
    // Not shrunk: a shrunk token of one repeated letter reads the same at every offset.
    const details = fc.check(noSecretIn(seal), { seed: SEED, numRuns: RUNS, endOnFailure: true })
    expect(details.failed).toBe(true)
    expect(String(details.errorInstance)).toMatch(pattern)
  }

  it('the payload in base64url beside the sealed part', () => {
    failsWith(
      (payload, key, bound) =>
        `${sealCredential(payload, key, bound)}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`,
      /of the token \(base64(url)?, \d leading bytes? dropped\)/
    )
  })

  // Each offset needs its own shifted form: base64 of text that holds the token after n bytes
  // reads as the base64 of the token with (3 - n % 3) % 3 bytes dropped.
  it.each([
    ['', 0],
    ['!', 2],
    ['!!', 1]
  ])('the token in standard base64 after the prefix "%s"', (prefix, dropped) => {
    failsWith(
      payload => Buffer.from(`${prefix}${payload.token}`).toString('base64'),
      new RegExp(`of the token \\(base64, ${dropped} leading bytes? dropped\\)`)
    )
  })

  it('8 characters of the API key as a key id', () => {
    failsWith(
      (payload, key, bound) => `${sealCredential(payload, key, bound)}.${key.slice(20, 28)}`,
      /of the API key \(as is\)/
    )
  })

  it('the token URL-encoded in a query', () => {
    failsWith(
      payload => `https://example.test/?t=${encodeURIComponent(`${payload.token}/`)}`,
      /of the token \((as is|URL-encoded)\)/
    )
  })
})

describe('the masked forms', () => {
  it('find a secret in base64 of a longer text at every offset', () => {
    const secret = 'tok_Zq81-nB2x_Yy7Lm0'
    for (const before of ['', 'a', 'ab', 'abc', '{"token":"']) {
      const encoded = Buffer.from(`${before}${secret}"}`).toString('base64')
      expect(maskedForms(secret).some(form => encoded.includes(form.text))).toBe(true)
    }
  })

  it('find a secret that only its URL-encoded form shows', () => {
    const secret = 'tok_ab+cd/ef=gh+ij/kl'
    const text = `https://example.test/?t=${encodeURIComponent(secret)}`
    expect(findLeak(text, { token: secret })).toEqual({
      secret: 'token',
      encoding: 'URL-encoded',
      window: 'tok_ab%2'
    })
  })

  it('find a secret with JSON escapes as JSON writes it', () => {
    const secret = 'tok_a"b\\c\u0001d'
    expect(maskedForms(secret)).toContainEqual({
      encoding: 'JSON-escaped',
      text: 'tok_a\\"b\\\\c\\u0001d'
    })
  })
})
