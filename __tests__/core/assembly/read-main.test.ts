import { readMainSettings } from '../../../src/core/assembly/read-main.js'
import { optionsFrom as reader } from '../../helpers/options.js'

const KEY = `sk_${'ab'.repeat(32)}`

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
    expect(settings).toStrictEqual({
      optionLabel: expect.any(Function),
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
      http: { maxAttempts: 5, timeoutSeconds: 12 },
      tunnel: undefined
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
      http: { maxAttempts: 3, timeoutSeconds: 30 },
      tunnel: undefined
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
    expect(readMainSettings(reader(SSH))).toStrictEqual({
      optionLabel: expect.any(Function),
      kind: 'ssh-key',
      apiKey: KEY,
      clientId: 'client-7',
      knownUser: { name: 'client-7', from: { label: 'input client-id', changeable: true } },
      baseUrl: 'https://s.test/functions/v1',
      tunnelHost: 'tunnel.s.test',
      tunnelPort: 2223,
      revoke: true,
      failOnRevokeError: false,
      envPrefix: 'SVC',
      exportEnv: true,
      http: { maxAttempts: 3, timeoutSeconds: 30 },
      tunnel: undefined
    })
    expect(readMainSettings(reader({ ...SSH, 'tunnel-port': '22' }))).toMatchObject({
      tunnelPort: 22
    })
  })

  it('reads existing settings without api-key, project or base-url', () => {
    expect(readMainSettings(reader(EXISTING))).toStrictEqual({
      optionLabel: expect.any(Function),
      kind: 'existing',
      tunnelToken: 'tok_abc',
      tunnelUser: 'user-1',
      knownUser: { name: 'user-1', from: { label: 'input tunnel-user', changeable: false } },
      tunnelHost: 'tunnel.s.test',
      tunnelPort: 2223,
      revoke: true,
      failOnRevokeError: false,
      envPrefix: 'SVC',
      exportEnv: true,
      http: { maxAttempts: 3, timeoutSeconds: 30 },
      tunnel: undefined
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
      'Input api-key is empty, and input credential is "ssh-key", which needs it'
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

describe('readMainSettings, naming options as the host does', () => {
  const cli = (name: string) => `--${name}`

  it.each([
    [{ credential: 'cicd', 'api-key': KEY, 'base-url': 'https://s.test' }, '--project is empty'],
    [{ credential: 'cicd', 'base-url': 'https://s.test', project: 'p' }, '--api-key is empty'],
    [{ credential: 'free', 'base-url': 'ftp://s.test' }, '--base-url is "ftp://s.test"'],
    [
      { credential: 'free', 'base-url': 'https://s.test', 'ttl-minutes': 'x', revoke: 'y' },
      '--revoke is "y"'
    ],
    [
      { credential: 'existing', 'tunnel-host': 't.example', 'tunnel-token': 'tok' },
      '--tunnel-user is empty'
    ],
    [
      { credential: 'free', 'base-url': 'https://s.test', 'env-prefix': '\u0007' },
      '--env-prefix is "\\u0007"'
    ]
  ])('%j fails naming the option by its label', (values, start) => {
    expect(() => readMainSettings(reader(values, cli))).toThrow(
      new RegExp(`^${start.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)
    )
  })
})
