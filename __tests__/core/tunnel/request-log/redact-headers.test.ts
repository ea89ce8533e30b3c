/**
 * Header redaction by name, against the header sets that real senders send: what the HAR keeps
 * of each. Credentials read REDACTED whatever their vendor calls them; what a reader or `replay`
 * needs and no one can reuse (a signature over one body, a date, an idempotency key) is kept.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import {
  CREDENTIAL_HEADER_NAMES,
  CREDENTIAL_NAME_WORDS,
  headerKindCache,
  isCredentialHeader,
  KEPT_HEADER_NAMES,
  type HeaderKind
} from '../../../../src/core/tunnel/request-log/header-rule.js'
import { makeRedactor, REDACTED } from '../../../../src/core/tunnel/request-log/redact.js'
import { aRecord } from './records.js'

const redact = makeRedactor({ headers: 'redacted', logBodies: false, secrets: [] })

/** The headers as written, by name. */
function kept(headers: [string, string][], response: [string, string][] = []) {
  const record = redact(aRecord({ requestHeaders: headers, responseHeaders: response }))
  return {
    request: Object.fromEntries(record.requestHeaders),
    response: Object.fromEntries(record.responseHeaders)
  }
}

const SENDERS: Record<string, { headers: [string, string][]; redacted: string[] }> = {
  GitHub: {
    headers: [
      ['User-Agent', 'GitHub-Hookshot/abc1234'],
      ['X-GitHub-Event', 'push'],
      ['X-GitHub-Delivery', '72d3162e-cc78-11e3-81ab-4c9367dc0958'],
      ['X-GitHub-Hook-ID', '292430182'],
      ['X-Hub-Signature', 'sha1=7d38cdd689735b008b3c702edd92eea23791c5f6'],
      [
        'X-Hub-Signature-256',
        'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17'
      ],
      ['Content-Type', 'application/json']
    ],
    redacted: []
  },
  GitLab: {
    headers: [
      ['User-Agent', 'GitLab/17.5.0'],
      ['X-Gitlab-Event', 'Push Hook'],
      ['X-Gitlab-Token', 'glwh-my-webhook-secret'],
      ['X-Gitlab-Instance', 'https://gitlab.example.com'],
      ['X-Gitlab-Webhook-UUID', '3d6e1a2b-0c4f-4b8e-9f3a-2d1c0b9a8e7f'],
      ['X-Gitlab-Event-UUID', '13792a34-cac6-4fda-95a8-c58e00a3954e'],
      ['Idempotency-Key', 'f5e5f7f2-7d74-4a8b-9a3c-0e2b8f1c6d4a']
    ],
    redacted: ['X-Gitlab-Token']
  },
  Stripe: {
    headers: [
      ['User-Agent', 'Stripe/1.0 (+https://stripe.com/docs/webhooks)'],
      [
        'Stripe-Signature',
        't=1492774577,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd'
      ],
      ['Content-Type', 'application/json; charset=utf-8']
    ],
    redacted: []
  },
  Slack: {
    headers: [
      ['User-Agent', 'Slackbot 1.0 (+https://api.slack.com/robots)'],
      ['X-Slack-Request-Timestamp', '1531420618'],
      ['X-Slack-Signature', 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503'],
      ['Content-Type', 'application/x-www-form-urlencoded']
    ],
    redacted: []
  },
  Twilio: {
    headers: [
      ['User-Agent', 'TwilioProxy/1.1'],
      ['X-Twilio-Signature', 'Np1nax6uFoY6qpfT5l9jWwJeit0='],
      ['I-Twilio-Idempotency-Token', '8f3a2f0e-1e1a-4a0b-bb5e-3f5a0b2c1d0e'],
      ['Content-Type', 'application/x-www-form-urlencoded']
    ],
    redacted: ['I-Twilio-Idempotency-Token']
  },
  AWS: {
    headers: [
      [
        'Authorization',
        'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-date, Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024'
      ],
      ['X-Amz-Date', '20130524T000000Z'],
      ['X-Amz-Security-Token', 'IQoJb3JpZ2luX2VjEXAMPLESESSIONTOKEN'],
      ['X-Amz-Content-Sha256', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855']
    ],
    redacted: ['Authorization', 'X-Amz-Security-Token']
  }
}

it.each(Object.entries(SENDERS))(
  "%s's headers: credentials redacted, signatures and the rest kept as sent",
  (_sender, { headers, redacted }) => {
    const { request } = kept(headers)
    for (const [name, sent] of headers) {
      expect([name, request[name]]).toEqual([name, redacted.includes(name) ? REDACTED : sent])
    }
  }
)

it('redacts every name with a credential word in it, in any case', () => {
  const headers: [string, string][] = [
    ['Private-Token', 'glpat-aaaa'],
    ['X-Auth-Token', 'a1'],
    ['X-Access-Token', 'a2'],
    ['X-CSRF-Token', 'a3'],
    ['X-Client-Secret', 'a4'],
    ['X-Password', 'a5'],
    ['X-Passwd', 'a6'],
    ['X-Session-Id', 'a7'],
    ['Cookie', 'sid=a8'],
    ['X-Credential', 'a9'],
    ['X-Api-Key', 'b1'],
    ['X-APIKEY', 'b2'],
    ['Proxy-Authorization', 'Basic b3'],
    ['authorization', 'Bearer b4']
  ]
  const { request, response } = kept(headers, [['Set-Cookie', 'sid=b5; HttpOnly']])
  for (const [name] of headers) expect([name, request[name]]).toEqual([name, REDACTED])
  expect(response['Set-Cookie']).toBe(REDACTED)
})

it('keeps WWW-Authenticate, Sec-WebSocket-Key, Idempotency-Key and any *-Signature header', () => {
  const headers: [string, string][] = [
    ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ=='],
    ['Idempotency-Key', 'k-1'],
    ['X-Shopify-Hmac-Signature', 'c2hvcGlmeQ=='],
    ['X-Signature', 'sha256=abcd']
  ]
  const { request, response } = kept(headers, [
    ['WWW-Authenticate', 'Basic realm="app", charset="UTF-8"']
  ])
  expect(request).toMatchObject(Object.fromEntries(headers))
  expect(response['WWW-Authenticate']).toBe('Basic realm="app", charset="UTF-8"')
})

it('keeps a kept header whole, URLs in it and credential words in its name included', () => {
  const challenge = 'Bearer realm="https://auth.example/token?service=registry&scope=pull"'
  const { request, response } = kept(
    [
      ['X-Hub-Signature-256', 'sha256=abcd'],
      ['X-Webhook-Token-Signature', 'sha256=ef01']
    ],
    [['WWW-Authenticate', challenge]]
  )
  expect(response['WWW-Authenticate']).toBe(challenge)
  expect(request['X-Webhook-Token-Signature']).toBe('sha256=ef01')
  expect(request['X-Hub-Signature-256']).toBe('sha256=abcd')
})

it('says no kept name is a credential, whatever words it holds, in any case', () => {
  for (const name of ['WWW-Authenticate', 'Sec-WebSocket-Key', 'X-Session-Token-Signature']) {
    expect([name, isCredentialHeader(name)]).toEqual([name, false])
  }
  expect(isCredentialHeader('X-Session-Token')).toBe(true)
  expect(isCredentialHeader('Accept')).toBe(false)
})

it('remembers at most 512 header names, and answers the same after forgetting them', () => {
  const known = new Map<string, HeaderKind>()
  const kindOf = headerKindCache(known)
  const names = Array.from({ length: 512 }, (_, index) => `X-Name-${index}`)
  for (const name of names) kindOf(name)
  // All remembered up to the bound: a flood of the same names costs no new work.
  expect(known.size).toBe(512)
  expect(kindOf('X-Name-0')).toBe('other')
  expect(known.size).toBe(512)
  // One more name than the bound: the cache starts again rather than grow.
  expect(kindOf('X-Flood-Token')).toBe('credential')
  expect(known.size).toBe(1)
  for (let index = 0; index < 2000; index++) kindOf(`X-Flood-${index}`)
  expect(known.size).toBeLessThanOrEqual(512)
  expect(kindOf('x-hub-signature')).toBe('kept')
})

it('docs/traffic.md lists exactly the words and names the rule uses', () => {
  const docs = readFileSync(
    fileURLToPath(new URL('../../../../docs/traffic.md', import.meta.url)),
    'utf8'
  )
  const section = docs.slice(docs.indexOf('### What the log redacts'))
  // Each bullet, its wrapped lines joined.
  const items = section.split('\n- ').map(item => item.replace(/\n\s*/g, ' '))
  const redactedLine = items.find(item => item.startsWith('Redacted:'))!
  const keptLine = items.find(item => item.startsWith('Kept as sent:'))!
  for (const word of [...CREDENTIAL_HEADER_NAMES, ...CREDENTIAL_NAME_WORDS]) {
    expect(redactedLine.toLowerCase()).toContain(`\`${word}\``)
  }
  for (const name of KEPT_HEADER_NAMES) expect(keptLine.toLowerCase()).toContain(`\`${name}\``)
})
