import {
  isLoopback,
  parseBaseUrl,
  readMainSettings,
  readPostSettings
} from '../../../src/core/settings/inputs.js'

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
      kind: 'cicd',
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
      kind: 'free',
      fellBackToFree: false,
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
      kind: 'free',
      fellBackToFree: true
    })
    expect(
      readMainSettings(
        reader({ credential: 'auto', 'api-key': KEY, project: 'p', 'base-url': 'https://s.test' })
      )
    ).toMatchObject({ kind: 'cicd' })
  })

  it('does not require a key or project for free credentials', () => {
    expect(() =>
      readMainSettings(reader({ credential: 'free', 'base-url': 'https://s.test' }))
    ).not.toThrow()
  })

  it('quotes a long bad value only in part', () => {
    expect(() =>
      readMainSettings(reader({ credential: 'x'.repeat(100), 'base-url': 'https://s.test' }))
    ).toThrow(
      `Input credential is "${'x'.repeat(57)}...": expected one of cicd, free, auto, ssh-key or existing.`
    )
  })

  it('rejects a post-only input before anything is sent', () => {
    expect(() =>
      readMainSettings(
        reader({ credential: 'free', 'base-url': 'https://s.test', 'fail-on-revoke-error': 'yes' })
      )
    ).toThrow('Input fail-on-revoke-error is "yes": expected true or false.')
  })

  it.each([
    ['project', 'a\nb', 'a\\u000ab', 'a line break (U+000A)'],
    ['project', 'a\u2028b', 'a\\u2028b', 'a line break (U+2028)'],
    ['environment', 'a\u0085b', 'a\\u0085b', 'a line break (U+0085)'],
    ['environment', 'a\u0007b', 'a\\u0007b', 'a control character (U+0007)'],
    ['environment', 'a\ud800b', 'a\\ud800b', 'an unpaired UTF-16 surrogate (U+D800)']
  ])('rejects %s %j, quoting it escaped', (name, value, shown, kind) => {
    expect(() =>
      readMainSettings(
        reader({ 'api-key': KEY, project: 'p', 'base-url': 'https://s.test', [name]: value })
      )
    ).toThrow(
      `Input ${name} is "${shown}": it holds ${kind} at character 2. Set it to a single line of plain text.`
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

describe('readMainSettings for ssh-key and existing', () => {
  const SSH = {
    credential: 'ssh-key',
    'api-key': KEY,
    'base-url': 'https://s.test',
    'client-id': 'client-7',
    'tunnel-host': 'tunnel.s.test'
  }
  const EXISTING = {
    credential: 'existing',
    'tunnel-token': 'tok_abc',
    'tunnel-user': 'user-1',
    'tunnel-host': 'tunnel.s.test'
  }

  it('reads ssh-key settings, with port 2223 by default', () => {
    expect(readMainSettings(reader(SSH))).toEqual({
      kind: 'ssh-key',
      apiKey: KEY,
      clientId: 'client-7',
      baseUrl: 'https://s.test/functions/v1',
      tunnelHost: 'tunnel.s.test',
      tunnelPort: 2223,
      revoke: true,
      failOnRevokeError: false,
      envPrefix: 'SVC',
      exportEnv: true,
      http: { maxAttempts: 3, timeoutSeconds: 30 }
    })
    expect(readMainSettings(reader({ ...SSH, 'tunnel-port': '22' }))).toMatchObject({
      tunnelPort: 22
    })
  })

  it('reads existing settings without api-key, project or base-url', () => {
    expect(readMainSettings(reader(EXISTING))).toEqual({
      kind: 'existing',
      tunnelToken: 'tok_abc',
      tunnelUser: 'user-1',
      tunnelHost: 'tunnel.s.test',
      tunnelPort: 2223,
      revoke: true,
      failOnRevokeError: false,
      envPrefix: 'SVC',
      exportEnv: true,
      http: { maxAttempts: 3, timeoutSeconds: 30 }
    })
  })

  it.each([
    [
      { ...SSH, 'client-id': ' ' },
      'Input client-id is empty, and credential is "ssh-key", which needs it'
    ],
    [
      { ...SSH, 'client-id': 'a b' },
      'Input client-id is "a b": expected a user name without spaces'
    ],
    [
      { ...SSH, 'tunnel-host': '' },
      'Input tunnel-host is empty, and credential is "ssh-key", which needs it'
    ],
    [
      { ...SSH, 'api-key': '' },
      'Input api-key is empty, and credential is "ssh-key", which needs it'
    ],
    [{ ...SSH, 'api-key': 'sk_short' }, 'Input api-key is not an API key'],
    [{ ...SSH, 'base-url': '' }, 'Input base-url is empty'],
    [
      { ...EXISTING, 'tunnel-token': '' },
      'Input tunnel-token is empty, and credential is "existing"'
    ],
    [
      { ...EXISTING, 'tunnel-user': '' },
      'Input tunnel-user is empty, and credential is "existing"'
    ],
    [
      { ...EXISTING, 'tunnel-user': 'u\nX=1' },
      'Input tunnel-user is "u\\u000aX=1": it holds a line break (U+000A) at character 2.'
    ],
    [
      { ...EXISTING, 'tunnel-host': '' },
      'Input tunnel-host is empty, and credential is "existing"'
    ],
    [
      { ...EXISTING, 'tunnel-host': 'https://t' },
      'Input tunnel-host is "https://t": expected a bare hostname'
    ],
    [{ ...EXISTING, 'tunnel-user': 'u::x' }, 'Input tunnel-user is "u::x": expected a user name'],
    [{ ...SSH, 'client-id': 'c##[warning]x' }, 'expected a user name without spaces'],
    [
      { ...EXISTING, 'tunnel-user': 'tok_abc' },
      'Input tunnel-user holds the tunnel-token, or a long piece of it'
    ]
  ])('refuses %j', (values, message) => {
    expect(() => readMainSettings(reader(values))).toThrow(message)
  })

  it('never quotes the tunnel token in an error', () => {
    let message = ''
    try {
      readMainSettings(reader({ ...EXISTING, 'tunnel-token': 'tok_secret value' }))
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toMatch(/^Input tunnel-token holds whitespace or control characters/)
    expect(message).not.toMatch(/secret value|tok_/)
  })
})

describe('readPostSettings', () => {
  it('reads what the post step needs, with defaults', () => {
    expect(readPostSettings(reader({ 'api-key': KEY, 'base-url': 'https://s.test' }))).toEqual({
      kind: 'cicd',
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

  it('takes the kind from the inputs, as main chose it', () => {
    const base = { 'base-url': 'https://s.test' }
    expect(readPostSettings(reader({ ...base, credential: 'auto' })).kind).toBe('free')
    expect(readPostSettings(reader({ ...base, credential: 'auto', 'api-key': KEY })).kind).toBe(
      'cicd'
    )
    expect(readPostSettings(reader({ ...base, credential: 'free', 'api-key': KEY })).kind).toBe(
      'free'
    )
  })

  it('reads no base-url for existing, which sends no request', () => {
    expect(readPostSettings(reader({ credential: 'existing' }))).not.toHaveProperty('baseUrl')
    expect(
      readPostSettings(reader({ credential: 'ssh-key', 'base-url': 'https://s.test' }))
    ).toMatchObject({
      kind: 'ssh-key',
      baseUrl: 'https://s.test/functions/v1'
    })
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

describe('readMainSettings, the raw text of every input', () => {
  const free = { credential: 'free', 'base-url': 'https://s.test' }
  const read = (values: Record<string, string>) => () => readMainSettings(reader(values))

  // new URL() drops tabs and line breaks, so the template used to pass its check and be printed.
  it.each([
    [
      'url-template',
      'https://{name}-{user}.{host}\n::error::pwned',
      'a line break (U+000A) at character 29'
    ],
    [
      'url-template',
      'https://{name}-{user}.{host}\t::add-mask::x',
      'a control character (U+0009) at character 29'
    ],
    [
      'url-template',
      'https://{name}.{host}/\u202eevil',
      'a bidirectional text control (U+202E) at character 23'
    ],
    ['base-url', 'https://s.test/\n::stop-commands::x', 'a line break (U+000A) at character 16'],
    ['tunnel-host', 'tunnel.example\r\n', 'a line break (U+000D) at character 15'],
    ['env-prefix', 'SVC\u0000', 'a control character (U+0000) at character 4'],
    ['revoke', 'true\u2029', 'a line break (U+2029) at character 5']
  ])('refuses %s %j, saying what and where', (name, value, what) => {
    expect(read({ ...free, expose: '3000', [name]: value })).toThrow(
      new RegExp(
        `^Input ${name} is ".*": it holds ${what.replace(/[()+]/g, '\\$&')}\\. Set it to a single line of plain text\\.$`
      )
    )
  })

  it('checks each line of expose and tunnel-host-key the same way, naming the line', () => {
    expect(read({ ...free, expose: 'web=3000\napi=\u00073001' })).toThrow(
      'Input expose, line 2, is "api=\\u00073001": it holds a control character (U+0007) at character 5. Write each entry as plain text on a line of its own.'
    )
    expect(read({ ...free, expose: '3000', 'tunnel-host-key': 'SHA256:x\u2028y' })).toThrow(
      /^Input tunnel-host-key, line 1, is .*: it holds a line break \(U\+2028\)/
    )
  })

  it('accepts CRLF line ends and tabs inside the lines of a list', () => {
    const line = `[t.example]:2223\tssh-ed25519\t${'A'.repeat(4)}`
    expect(() =>
      readMainSettings(reader({ ...free, expose: 'web=3000\r\napi=3001\r\n' }))
    ).not.toThrow()
    // The line reaches the known_hosts parser, which refuses its key, not its tabs.
    expect(read({ ...free, expose: '3000', 'tunnel-host-key': line })).toThrow(
      'the key after ssh-ed25519 is not a valid ssh-ed25519 key in base64'
    )
  })

  it('names a secret input with a line break but never shows any of it', () => {
    const secret = `sk_${'ab'.repeat(32)}`
    for (const [name, values] of [
      ['api-key', { 'api-key': `${secret}\nX=1`, project: 'p', 'base-url': 'https://s.test' }],
      [
        'tunnel-token',
        {
          credential: 'existing',
          'tunnel-token': `${secret}\u0085`,
          'tunnel-user': 'u',
          'tunnel-host': 't.example'
        }
      ]
    ] as const) {
      let message = ''
      try {
        readMainSettings(reader(values))
      } catch (error) {
        message = (error as Error).message
      }
      expect(message).toMatch(
        new RegExp(`^Input ${name} holds a line break \\(U\\+00(0A|85)\\): check that the secret`)
      )
      expect(message).not.toContain('abab')
      expect(message).not.toMatch(/character \d/)
    }
  })
})
