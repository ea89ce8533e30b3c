/**
 * The inputs that guard the runner's files and log, and the edges of the numeric inputs, read as
 * the main and post steps read them: each case checks the exact value or message a user sees.
 */
import { readMainSettings } from '../../../src/core/assembly/read-main.js'
import { readPostSettings } from '../../../src/core/assembly/read-post.js'
import { readBaseUrl } from '../../../src/core/settings/common.js'
import { optionsFrom as reader } from '../../helpers/options.js'

const KEY = `sk_${'ab'.repeat(32)}`
const FREE = { credential: 'free', 'base-url': 'https://s.test' }
const CICD = { 'api-key': KEY, project: 'web-shop', 'base-url': 'https://s.test' }
const read = (values: Record<string, string>) => () => readMainSettings(reader(values))

describe('the numeric inputs, at and past their bounds', () => {
  it.each([
    ['max-attempts', '1', { http: { maxAttempts: 1, timeoutSeconds: 30 } }],
    ['max-attempts', '10', { http: { maxAttempts: 10, timeoutSeconds: 30 } }],
    ['timeout-seconds', '1', { http: { maxAttempts: 3, timeoutSeconds: 1 } }],
    ['timeout-seconds', '600', { http: { maxAttempts: 3, timeoutSeconds: 600 } }],
    ['tunnel-port', '1', { tunnelPort: 1 }],
    ['tunnel-port', '65535', { tunnelPort: 65535 }]
  ])('accepts %s %s', (name, value, expected) => {
    expect(readMainSettings(reader({ ...CICD, [name]: value }))).toMatchObject(expected)
  })

  it.each([
    ['max-attempts', '0', 'from 1 to 10'],
    ['max-attempts', '11', 'from 1 to 10'],
    ['timeout-seconds', '601', 'from 1 to 600'],
    ['tunnel-port', '0', 'from 1 to 65535'],
    ['tunnel-port', '65536', 'from 1 to 65535'],
    ['tunnel-port', '0x16', 'from 1 to 65535'],
    ['tunnel-port', '1e3', 'from 1 to 65535'],
    ['ttl-minutes', '0', 'of at least 1']
  ])('refuses %s %s', (name, value, range) => {
    expect(read({ ...CICD, [name]: value })).toThrow(
      `Input ${name} is "${value}": expected a whole number ${range}.`
    )
  })

  it('uses 3 attempts of 30 s each, and no port, when the inputs are empty', () => {
    expect(readMainSettings(reader(CICD))).toStrictEqual({
      optionLabel: expect.any(Function),
      kind: 'cicd',
      apiKey: KEY,
      project: 'web-shop',
      environment: '',
      ttlMinutes: undefined,
      baseUrl: 'https://s.test/functions/v1',
      tunnelHost: undefined,
      tunnelPort: undefined,
      revoke: true,
      failOnRevokeError: false,
      envPrefix: 'SVC',
      exportEnv: true,
      http: { maxAttempts: 3, timeoutSeconds: 30 },
      tunnel: undefined
    })
  })
})

describe('env-prefix, which names the variables written to GITHUB_ENV', () => {
  it.each([
    ['', 'SVC'],
    [' ', 'SVC'],
    ['A', 'A'],
    [' ACME_2_ ', 'ACME_2_']
  ])('reads %j as %s', (value, prefix) => {
    expect(readMainSettings(reader({ ...FREE, 'env-prefix': value })).envPrefix).toBe(prefix)
  })

  it.each(['svc', 'aSVC', 'SVC-1', 'SVC.x', '1SVC', '_SVC', 'S V'])('refuses %j', value => {
    expect(read({ ...FREE, 'env-prefix': value })).toThrow(
      `Input env-prefix is "${value}": expected an upper-case letter followed by upper-case letters, digits or underscores, such as SVC.`
    )
  })
})

describe('the switches', () => {
  it('reads export-env and revoke as false', () => {
    expect(
      readMainSettings(reader({ ...FREE, 'export-env': 'false', revoke: 'FALSE' }))
    ).toMatchObject({ exportEnv: false, revoke: false })
  })

  it("reads the post step's revoke input", () => {
    expect(readPostSettings(reader({ ...FREE, revoke: ' false ' })).revoke).toBe(false)
    expect(() => readPostSettings(reader({ ...FREE, revoke: 'no' }))).toThrow(
      'Input revoke is "no": expected true or false.'
    )
  })

  it('refuses export-env other than true or false', () => {
    expect(read({ ...FREE, 'export-env': '1' })).toThrow(
      'Input export-env is "1": expected true or false.'
    )
  })
})

describe('project and environment, printed in the middle of a log line', () => {
  it.each(['project', 'environment'])('refuses ##[ in %s', name => {
    expect(read({ ...CICD, [name]: 'web##[add-mask]x' })).toThrow(
      `Input ${name} is "web\\u0023#[add-mask]x": it holds "#" followed by "#[", which the log reader of a CI system obeys as a command anywhere in a line. Remove it.`
    )
  })

  it('asks for the project when credential is cicd', () => {
    expect(read({ ...CICD, project: '  ' })).toThrow(
      'Input project is empty: set it to the project slug to provision for.'
    )
  })
})

describe('the API key', () => {
  const notAKey =
    'Input api-key is not an API key: expected sk_ followed by 64 hexadecimal characters. Check that the secret holds the whole key, with no quotes or extra text.'
  it.each([
    `x${KEY}`,
    `${KEY}0`,
    KEY.slice(0, -1),
    `sk_${'g'.repeat(64)}`,
    `SK-${'ab'.repeat(32)}`
  ])('refuses %s, without quoting it', apiKey => {
    expect(read({ ...CICD, 'api-key': apiKey })).toThrow(notAKey)
  })

  it('accepts upper-case hexadecimal digits', () => {
    const upper = `sk_${'AB'.repeat(32)}`
    expect(readMainSettings(reader({ ...CICD, 'api-key': upper }))).toMatchObject({
      apiKey: upper
    })
  })
})

describe('base-url', () => {
  const url = (value: string) => () => readBaseUrl(reader({ 'base-url': value }))
  it.each(['https://user:pass@s.test', 'https://user@s.test', 'https://:pass@s.test'])(
    'refuses the user info in %s, without quoting it',
    value => {
      expect(url(value)).toThrow(
        'Input base-url holds a user name or password: remove them; the API key is sent as a header.'
      )
    }
  )

  it.each(['https://s.test/v1?key=1', 'https://s.test/v1#top', 'https://s.test/?#x'])(
    'refuses the query or fragment in %s',
    value => {
      expect(url(value)).toThrow(
        `Input base-url is "${value}": remove the query string or fragment.`
      )
    }
  )

  it.each(['ftp://localhost/x', 'ws://127.0.0.1:8787', 'file://localhost/tmp'])(
    'refuses %s, a scheme other than http(s) even to a loopback host',
    value => {
      expect(url(value)).toThrow(
        `Input base-url is "${value}": it must use https. Plain http is accepted only for loopback hosts (localhost, 127.0.0.0/8, ::1), for local testing.`
      )
    }
  )

  it('refuses what is not a URL, and says what to set when empty', () => {
    expect(url('s.test/v1')).toThrow(
      'Input base-url is "s.test/v1": not a URL. Expected https://host[/path].'
    )
    expect(url(' ')).toThrow(
      'Input base-url is empty: set it to the credential service address, for example https://<your-service>/functions/v1.'
    )
  })
})
