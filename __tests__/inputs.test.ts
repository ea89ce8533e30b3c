import { isLoopback, parseBaseUrl, readMainSettings, readPostSettings } from '../src/inputs.js'

const KEY = `sk_${'ab'.repeat(32)}`
const reader =
  (values: Record<string, string>) =>
  (name: string): string =>
    values[name] ?? ''

describe('readMainSettings', () => {
  it('reads a full cicd configuration into typed settings', () => {
    const settings = readMainSettings(
      reader({
        'api-key': ` ${KEY} `,
        project: 'web-shop',
        environment: 'staging',
        'ttl-minutes': '45',
        'base-url': 'https://svc.example.test',
        credential: 'CICD',
        revoke: 'False',
        'tunnel-host': '10.0.0.7',
        'tunnel-port': '2022',
        'env-prefix': 'ACME_2',
        'export-env': 'true',
        'max-attempts': '5',
        'timeout-seconds': '12'
      })
    )
    expect(settings).toEqual({
      flavour: 'cicd',
      fellBackToFree: false,
      apiKey: KEY,
      project: 'web-shop',
      environment: 'staging',
      ttlMinutes: 45,
      baseUrl: 'https://svc.example.test/functions/v1',
      revoke: false,
      failOnRevokeError: false,
      tunnelHost: '10.0.0.7',
      tunnelPort: 2022,
      envPrefix: 'ACME_2',
      exportEnv: true,
      http: { maxAttempts: 5, timeoutSeconds: 12 }
    })
  })

  it('applies the defaults of action.yml when inputs are empty', () => {
    const settings = readMainSettings(
      reader({ credential: 'free', 'base-url': 'https://svc.example.test/v1' })
    )
    expect(settings).toMatchObject({
      flavour: 'free',
      fellBackToFree: false,
      ttlMinutes: undefined,
      revoke: true,
      envPrefix: 'SVC',
      exportEnv: true,
      http: { maxAttempts: 3, timeoutSeconds: 30 }
    })
  })

  it('chooses free for auto without a key, and cicd with one', () => {
    expect(
      readMainSettings(reader({ credential: 'auto', 'base-url': 'https://s.test' }))
    ).toMatchObject({
      flavour: 'free',
      fellBackToFree: true
    })
    expect(
      readMainSettings(
        reader({ credential: 'auto', 'api-key': KEY, project: 'p', 'base-url': 'https://s.test' })
      )
    ).toMatchObject({ flavour: 'cicd', fellBackToFree: false })
  })

  it('does not require a key or project for free credentials', () => {
    expect(() =>
      readMainSettings(reader({ credential: 'free', 'base-url': 'https://s.test' }))
    ).not.toThrow()
  })

  it('quotes a long bad value only in part', () => {
    expect(() =>
      readMainSettings(reader({ credential: 'x'.repeat(100), 'base-url': 'https://s.test' }))
    ).toThrow(`Input credential is "${'x'.repeat(57)}...": expected one of cicd, free or auto.`)
  })

  it('rejects a post-only input before anything is sent', () => {
    expect(() =>
      readMainSettings(
        reader({ credential: 'free', 'base-url': 'https://s.test', 'fail-on-revoke-error': 'yes' })
      )
    ).toThrow('Input fail-on-revoke-error is "yes": expected true or false.')
  })

  it.each([
    ['project', 'a\nb', 'a\\u000ab'],
    ['project', 'a\u2028b', 'a\\u2028b'],
    ['environment', 'a\u0085b', 'a\\u0085b'],
    ['environment', 'a\u0007b', 'a\\u0007b'],
    ['environment', 'a\ud800b', 'a\\ud800b']
  ])('rejects %s %j, quoting it escaped', (name, value, shown) => {
    expect(() =>
      readMainSettings(
        reader({ 'api-key': KEY, project: 'p', 'base-url': 'https://s.test', [name]: value })
      )
    ).toThrow(
      `Input ${name} is "${shown}": it holds a line break or another control character. Set it to a single line of plain text.`
    )
  })

  it('rejects timeout-seconds out of range', () => {
    expect(() =>
      readMainSettings(
        reader({ credential: 'free', 'base-url': 'https://s.test', 'timeout-seconds': '0' })
      )
    ).toThrow('Input timeout-seconds is "0": expected a whole number from 1 to 600.')
  })
})

describe('readPostSettings', () => {
  it('reads what the post step needs, with defaults', () => {
    expect(readPostSettings(reader({ 'api-key': KEY, 'base-url': 'https://s.test' }))).toEqual({
      flavour: 'cicd',
      apiKey: KEY,
      baseUrl: 'https://s.test/functions/v1',
      revoke: true,
      failOnRevokeError: false,
      http: { maxAttempts: 3, timeoutSeconds: 30 }
    })
    expect(
      readPostSettings(reader({ 'fail-on-revoke-error': 'TRUE', 'base-url': 'https://s.test' }))
        .failOnRevokeError
    ).toBe(true)
  })

  it('takes the flavour from the inputs, as main chose it', () => {
    const base = { 'base-url': 'https://s.test' }
    expect(readPostSettings(reader({ ...base, credential: 'auto' })).flavour).toBe('free')
    expect(readPostSettings(reader({ ...base, credential: 'auto', 'api-key': KEY })).flavour).toBe(
      'cicd'
    )
    expect(readPostSettings(reader({ ...base, credential: 'free', 'api-key': KEY })).flavour).toBe(
      'free'
    )
  })

  it('validates base-url as main does', () => {
    expect(() => readPostSettings(reader({ 'base-url': 'http://svc.example.test' }))).toThrow(
      /it must use https/
    )
  })
})

describe('parseBaseUrl', () => {
  it.each([
    ['https://svc.example.test', 'https://svc.example.test/functions/v1'],
    ['https://svc.example.test/', 'https://svc.example.test/functions/v1'],
    ['https://svc.example.test/functions/v1/', 'https://svc.example.test/functions/v1'],
    ['https://svc.example.test:8443/api', 'https://svc.example.test:8443/api'],
    ['http://localhost:8787', 'http://localhost:8787/functions/v1'],
    ['http://127.0.0.5/x', 'http://127.0.0.5/x'],
    ['http://[::1]:9000', 'http://[::1]:9000/functions/v1'],
    ['http://[::1]', 'http://[::1]/functions/v1'],
    ['https://svc.example.test//', 'https://svc.example.test/functions/v1'],
    ['http://localhost:8787///', 'http://localhost:8787/functions/v1']
  ])('%s → %s', (input, expected) => {
    expect(parseBaseUrl(input)).toBe(expected)
  })

  it.each([
    'http://10.0.0.1',
    'http://localhost.evil.test',
    'http://128.0.0.1',
    'ftp://svc.example.test'
  ])('refuses %s', input => {
    expect(() => parseBaseUrl(input)).toThrow(/it must use https/)
  })
})

describe('isLoopback', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST', true],
    ['127.0.0.1', true],
    ['127.255.1.2', true],
    ['[::1]', true],
    ['::1', true],
    ['127.example.test', false],
    ['10.0.0.1', false]
  ])('%s → %s', (host, expected) => {
    expect(isLoopback(host)).toBe(expected)
  })
})
