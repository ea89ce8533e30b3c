/**
 * fast-check arbitraries for hostile answers to `credential-provision`: a valid credential
 * mutated field by field (wrong types, line breaks, control and format characters, Unicode
 * separators, unpaired surrogates, `NAME=value` and heredoc injections, workflow commands, huge
 * strings), keys removed, duplicated in the raw JSON text and added, bodies cut short or replaced
 * by garbage, and non-2xx answers whose bodies echo a secret. Pure: no I/O.
 */
import fc from 'fast-check'

export const API_KEY = `sk_${'0123456789abcdef'.repeat(4)}`
/** The random part of the valid token: any 8 characters of it on a log line are a leak. */
export const TOKEN_CORE = '3f9a8b7c6d5e4f3a2b1c'
export const TOKEN = `tok_${TOKEN_CORE}`

/** A value the raw JSON text spells out as given (numbers JSON.stringify cannot write). */
export interface RawJson {
  raw: string
}
export type FieldValue = unknown

export const VALID_CREDENTIAL: [string, FieldValue][] = [
  ['token', TOKEN],
  ['tunnel_user', 'ab12c'],
  ['client_id', 'client-77'],
  ['expires_at', '2026-11-23T11:00:00Z'],
  ['ttl_minutes', 60],
  ['tunnel_host', 'tunnel.example.test'],
  ['tunnel_port', 2223],
  ['project_slug', 'web-shop']
]

/** Keys whose string values are secrets: masked if accepted, never printed. */
export const SECRET_KEYS = ['token', 'tunnel_client_secret']

export interface ServiceAnswer {
  status: number
  /** The body exactly as sent. */
  body: string
  headers: Record<string, string>
  /** Strings sent under a secret key, duplicates included, plus any secret the body echoes. */
  secrets: string[]
}

/** What credential-provision answers: the last answer repeats for every later attempt. */
export interface HostileCase {
  answers: ServiceAnswer[]
  /** The answer every revoke-token request gets, from post or from an early revoke in main. */
  revokeAnswer: ServiceAnswer
}

// Every character class the runner, the shell or a reader of KEY=value lines may treat specially.
const HOSTILE_CHARACTERS = [
  '\n',
  '\r',
  '\r\n',
  '\t',
  '\v',
  '\f',
  '\0',
  '\x1b[31m',
  '\x7f',
  '\x85', // NEL
  '\u2028', // line separator
  '\u2029', // paragraph separator
  '\u200b',
  '\u200e',
  '\u202e',
  '\ufeff',
  '\u00a0',
  '\u3000',
  '\ud800', // unpaired high surrogate
  '\udfff', // unpaired low surrogate
  '\udc00\ud800', // two halves in the wrong order
  '\u{1F511}' // a well-formed pair, which must survive as it is
]

const INJECTIONS = [
  '=',
  'X=1',
  '\nSVC_TUNNEL_TOKEN=tok_evil',
  '\nNODE_OPTIONS=--require=/tmp/evil.js',
  '\r\nBASH_ENV=/tmp/evil',
  '<<EOF',
  '\nEOF\nINJECTED=1',
  'SVC_TUNNEL_HOST<<EOF\nevil\nEOF',
  '\nghadelimiter_00000000-0000-4000-8000-000000000000\nINJECTED=1',
  'ghadelimiter_',
  '::stop-commands::fuzzpause',
  '\n::stop-commands::fuzzpause',
  '\r::stop-commands::fuzzpause',
  '\u2028::stop-commands::fuzzpause',
  '\n::STOP-COMMANDS::fuzzpause',
  '\n  ::add-mask::x',
  '\n::error::forged error',
  '\n::warning::forged warning',
  '\n::set-output name=token::evil',
  '\n::save-state name=credential::{}',
  '%0A::stop-commands::fuzzpause',
  '##[stop-commands]fuzzpause',
  '##[add-mask]x',
  '##[set-env name=NODE_OPTIONS]--require=/tmp/evil.js',
  '"',
  '\\',
  '${{ secrets.X }}',
  '$(id)',
  '`id`',
  '~',
  '<script>alert(1)</script>',
  '%',
  '%25',
  '%0D'
]

const hostileFragment = fc.oneof(
  fc.constantFrom(...HOSTILE_CHARACTERS),
  fc.constantFrom(...INJECTIONS),
  fc.string({
    unit: fc.oneof(
      fc.constantFrom(...HOSTILE_CHARACTERS),
      fc.string({ unit: 'binary', maxLength: 1 })
    ),
    minLength: 1,
    maxLength: 12
  })
)

/** `base` with a fragment at its start, end or somewhere inside. */
const injectedInto = (base: string) =>
  fc
    .tuple(hostileFragment, fc.nat({ max: base.length }), fc.constantFrom('at', 'start', 'end'))
    .map(([fragment, index, where]) =>
      where === 'start'
        ? fragment + base
        : where === 'end'
          ? base + fragment
          : base.slice(0, index) + fragment + base.slice(index)
    )

const huge = (base: string) =>
  fc
    .constantFrom(300, 5_000, 200_000)
    .chain(size =>
      fc.constantFrom(base + 'a'.repeat(size), base + '\n'.repeat(size), 'x'.repeat(size) + base)
    )

const wrongType = (base: FieldValue) =>
  fc.constantFrom<FieldValue>(
    null,
    true,
    false,
    0,
    -1,
    2223.5,
    1e21,
    65536,
    '',
    [],
    [base],
    {},
    { value: base },
    { raw: '1e400' } satisfies RawJson,
    { raw: '-0' } satisfies RawJson,
    { raw: '9007199254740993' } satisfies RawJson,
    typeof base === 'number' ? String(base) : base
  )

/** Values a field's type and form make tempting: other spellings of ports, times and numbers. */
const nearMisses = new Map<string, FieldValue[]>(
  Object.entries({
    tunnel_port: [
      '2022',
      '02223',
      '2223 ',
      ' 2223',
      '0x8af',
      '1e3',
      '-1',
      '65536',
      '0',
      22.0,
      99999
    ],
    ttl_minutes: ['60', 0, -5, 1.5, 2 ** 53, { raw: '60.0' } satisfies RawJson],
    expires_at: [
      '2026-11-23T11:00:00+01:00',
      '2026-11-23T11:00:00.123456Z',
      '2000-01-01T00:00:00Z',
      '2026-11-23T09:59:59Z',
      '2026-02-31T00:00:00Z',
      '9999-12-31T23:59:59Z',
      '+275760-09-13T00:00:00Z',
      '2026-11-23 11:00:00Z',
      'tomorrow'
    ],
    // The product's fields (issue 27): a host name, a boolean and a short word, or refused.
    tunnel_fqdn: [
      'cicd.eu1.tunnels.example',
      'CICD.eu1.tunnels.example',
      'cicd.eu1.tunnels.example.',
      '192.0.2.7',
      '[::1]',
      'a_b.example',
      'cicd.example:443',
      'https://cicd.example',
      'cicd.example/x',
      '-bad.example',
      'a'.repeat(64) + '.example'
    ],
    append_user_to_subdomain: [true, false, 'true', 'false', 0, 1, 'yes'],
    ownership_type: [
      'shared',
      'dedicated',
      'self-hosted',
      'team_pool-2',
      'Shared',
      'self hosted',
      's'.repeat(33),
      '9shared'
    ],
    tunnel_host: [
      '127.0.0.1',
      '::1',
      '[::1]',
      'tunnel.example.test:2223',
      'https://tunnel.example.test',
      'tunnel.example.test.',
      '-bad.example',
      'a'.repeat(64) + '.example'
    ]
  })
)

export const hostileValue = (field: string, base: FieldValue): fc.Arbitrary<FieldValue> => {
  const text = typeof base === 'string' ? base : String(base)
  return fc.oneof(
    { weight: 3, arbitrary: injectedInto(text) },
    { weight: 2, arbitrary: wrongType(base) },
    { weight: 1, arbitrary: hostileFragment },
    { weight: 1, arbitrary: huge(text) },
    { weight: 2, arbitrary: fc.constantFrom(...(nearMisses.get(field) ?? [text])) }
  )
}

type Entries = [string, FieldValue][]

const FIELDS = VALID_CREDENTIAL.map(([key]) => key)
const EXTRA_KEYS = [
  '__proto__',
  'constructor',
  'toString',
  'SVC_TUNNEL_TOKEN',
  'tunnel_client_secret',
  'tunnel_client_id',
  'error',
  'code',
  'token ',
  'Token',
  '',
  'key\nwith a line break',
  'limits',
  'tunnel_fqdn',
  'append_user_to_subdomain',
  'ownership_type'
]
/** What an extra key's hostile values start from: a token, or what the product sends there. */
const EXTRA_BASES: Record<string, FieldValue> = {
  tunnel_fqdn: 'cicd.eu1.tunnels.example',
  append_user_to_subdomain: true,
  ownership_type: 'shared',
  tunnel_client_id: 'ab12c',
  tunnel_client_secret: TOKEN
}

const valueOf = (entries: Entries, key: string): FieldValue =>
  entries.find(([k]) => k === key)?.[1] ?? VALID_CREDENTIAL.find(([k]) => k === key)?.[1] ?? 'x'

/** One change to the key/value list; the list keeps duplicates, as raw JSON text can. */
const mutation: fc.Arbitrary<(entries: Entries) => fc.Arbitrary<Entries>> = fc.oneof(
  fc
    .constantFrom(...FIELDS)
    .map(
      key => (entries: Entries) =>
        hostileValue(key, valueOf(entries, key)).map(value =>
          entries.map(([k, v]): [string, FieldValue] => (k === key ? [k, value] : [k, v]))
        )
    ),
  fc
    .constantFrom(...FIELDS)
    .map(key => (entries: Entries) => fc.constant(entries.filter(([k]) => k !== key))),
  fc
    .constantFrom(...FIELDS)
    .map(
      key => (entries: Entries) =>
        fc
          .tuple(hostileValue(key, valueOf(entries, key)), fc.boolean())
          .map(([value, before]): Entries =>
            before ? [[key, value], ...entries] : [...entries, [key, value]]
          )
    ),
  fc
    .constantFrom(...EXTRA_KEYS)
    .map(
      key => (entries: Entries) =>
        hostileValue(key, EXTRA_BASES[key] ?? TOKEN).map((value): Entries => [
          ...entries,
          [key, value]
        ])
    ),
  // The other spelling beside the spec's (issue 27): the same value, or another one.
  fc.constantFrom(['token', 'tunnel_client_secret'], ['tunnel_user', 'tunnel_client_id']).map(
    ([spec, product]) =>
      (entries: Entries) =>
        fc
          .oneof(fc.constant(valueOf(entries, spec)), hostileValue(product, valueOf(entries, spec)))
          .map((value): Entries => [...entries, [product, value]])
  ),
  // The product's URL fields, as it sends them or hostile (issue 27).
  fc.constant((entries: Entries) =>
    fc
      .tuple(
        fc.oneof(
          fc.constant<FieldValue>('cicd.eu1.tunnels.example'),
          hostileValue('tunnel_fqdn', 'cicd.eu1.tunnels.example')
        ),
        fc.oneof(fc.boolean(), hostileValue('append_user_to_subdomain', true)),
        fc.oneof(
          fc.constantFrom<FieldValue>('shared', 'dedicated'),
          hostileValue('ownership_type', 'shared')
        )
      )
      .map(([fqdn, append, ownership]): Entries => [
        ...entries,
        ['tunnel_fqdn', fqdn],
        ['append_user_to_subdomain', append],
        ['ownership_type', ownership]
      ])
  ),
  // The free credential's spellings, which some deployments send instead.
  fc.constantFrom(['token', 'tunnel_client_secret'], ['tunnel_user', 'tunnel_client_id']).map(
    ([from, to]) =>
      (entries: Entries) =>
        fc.constant(entries.map(([k, v]): [string, FieldValue] => [k === from ? to : k, v]))
  )
)

const mutatedEntries: fc.Arbitrary<Entries> = fc
  .array(mutation, { minLength: 0, maxLength: 3 })
  .chain(changes =>
    changes.reduce<fc.Arbitrary<Entries>>(
      (sofar, change) => sofar.chain(entries => change(entries)),
      fc.constant(VALID_CREDENTIAL)
    )
  )

function isRawJson(value: unknown): value is RawJson {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.keys(value).length === 1 &&
    typeof (value as RawJson).raw === 'string'
  )
}

function jsonText(value: FieldValue): string {
  return isRawJson(value) ? value.raw : JSON.stringify(value)
}

/** The object as raw JSON text, keeping duplicate keys in order. */
export function objectText(entries: Entries): string {
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`
}

function secretsOf(entries: Entries): string[] {
  return entries
    .filter(([k, v]) => SECRET_KEYS.includes(k) && typeof v === 'string')
    .map(([, v]) => v as string)
}

const JSON_HEADERS = { 'content-type': 'application/json' }
const success = fc.constantFrom(200, 200, 200, 201, 202, 203)

const mutatedCredential: fc.Arbitrary<ServiceAnswer> = fc
  .tuple(success, mutatedEntries)
  .map(([status, entries]) => ({
    status,
    body: objectText(entries),
    headers: JSON_HEADERS,
    secrets: secretsOf(entries)
  }))

const truncatedCredential: fc.Arbitrary<ServiceAnswer> = fc
  .tuple(success, mutatedEntries, fc.double({ min: 0, max: 1, noNaN: true }))
  .map(([status, entries, cut]) => {
    const text = objectText(entries)
    return {
      status,
      body: text.slice(0, Math.floor(text.length * cut)),
      headers: JSON_HEADERS,
      secrets: [TOKEN, ...secretsOf(entries)]
    }
  })

const VALID_TEXT = objectText(VALID_CREDENTIAL)
const garbage: fc.Arbitrary<ServiceAnswer> = fc
  .tuple(
    success,
    fc.oneof(
      fc.constantFrom(
        '',
        ' ',
        'null',
        'true',
        '0',
        '"tok_3f9a8b7c6d5e4f3a2b1c"',
        `[${VALID_TEXT}]`,
        `\ufeff${VALID_TEXT}`,
        `${VALID_TEXT}${VALID_TEXT}`,
        `${VALID_TEXT} trailing`,
        `${VALID_TEXT}\n::stop-commands::fuzzpause`,
        `<html><body>token ${TOKEN}</body></html>`,
        `token=${TOKEN}&tunnel_user=ab12c`,
        VALID_TEXT.replace(/"/g, "'"),
        'a'.repeat(1024 * 1024 + 10)
      ),
      fc.string({ unit: 'binary', maxLength: 200 }),
      hostileFragment
    )
  )
  .map(([status, body]) => ({ status, body, headers: {}, secrets: [TOKEN] }))

const FAILURE_STATUSES = [301, 302, 400, 401, 403, 404, 405, 408, 409, 418, 422, 429, 500, 502, 503]
const RETRYABLE_STATUSES = [408, 429, 500, 502, 503]

/** Text a service might put in an error body, echoing the secrets it should never repeat. */
const echoText = fc.oneof(
  fc.constantFrom(
    `invalid token ${TOKEN}`,
    `token ${TOKEN} already issued`,
    `X-API-Key ${API_KEY} is not allowed`,
    `${TOKEN}`,
    `{"token":"${TOKEN}"`
  ),
  injectedInto(`token ${TOKEN} refused`),
  hostileFragment
)

const retryAfter = fc.constantFrom<FieldValue>(
  1,
  2,
  59,
  61,
  3600,
  1e13,
  -1,
  1.5,
  '5',
  '1e13',
  null,
  'soon',
  { raw: '1e400' } satisfies RawJson
)
const retryAfterHeader = fc.option(
  fc.constantFrom('1', '0', '61', '99999999999999', 'Wed, 21 Oct 2099 07:28:00 GMT', '-3', 'x'),
  { nil: undefined }
)

const errorBody = fc.oneof(
  fc
    .record(
      {
        error: fc.oneof(echoText, hostileValue('error', 'no')),
        code: fc.oneof(fc.constantFrom('BAD_REQUEST', 'RATE_LIMIT', 'INTERNAL_ERROR'), echoText),
        retry_after: retryAfter
      },
      { requiredKeys: [] }
    )
    .map(record => objectText(Object.entries(record))),
  echoText,
  fc.constant(VALID_TEXT)
)

const failureAnswer = (statuses: number[]): fc.Arbitrary<ServiceAnswer> =>
  fc
    .tuple(fc.constantFrom(...statuses), errorBody, retryAfterHeader)
    .map(([status, body, header]) => ({
      status,
      body,
      headers: { ...JSON_HEADERS, ...(header !== undefined && { 'retry-after': header }) },
      secrets: [TOKEN]
    }))

const finalAnswer: fc.Arbitrary<ServiceAnswer> = fc.oneof(
  { weight: 8, arbitrary: mutatedCredential },
  { weight: 2, arbitrary: truncatedCredential },
  { weight: 2, arbitrary: garbage },
  { weight: 3, arbitrary: failureAnswer(FAILURE_STATUSES) }
)

const plain = (status: number, body: string): ServiceAnswer => ({
  status,
  body,
  headers: body ? JSON_HEADERS : {},
  secrets: []
})
export const REVOKED = plain(200, '{"success":true}')

const revokeAnswer: fc.Arbitrary<ServiceAnswer> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      REVOKED,
      plain(200, ''),
      plain(204, ''),
      plain(404, '{"error":"not found","code":"NOT_FOUND"}')
    )
  },
  // The post step prints what a failed revoke said: the same hostile words, seen from post.
  { weight: 1, arbitrary: failureAnswer(FAILURE_STATUSES) }
)

export const hostileCase: fc.Arbitrary<HostileCase> = fc.record({
  answers: fc.oneof(
    { weight: 4, arbitrary: finalAnswer.map(answer => [answer]) },
    // A failed attempt that is retried, so its words are printed before the answer that counts.
    { weight: 1, arbitrary: fc.tuple(failureAnswer(RETRYABLE_STATUSES), finalAnswer) }
  ),
  revokeAnswer
})

/** Inputs a workflow may pass from untrusted sources (a branch name, a PR title). */
export const hostileInputText = fc.oneof(
  injectedInto('staging'),
  hostileFragment,
  fc.constantFrom('staging', 'web-shop')
)

export const VALID_ANSWER: ServiceAnswer = {
  status: 200,
  body: VALID_TEXT,
  headers: JSON_HEADERS,
  secrets: [TOKEN]
}
