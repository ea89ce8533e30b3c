/** The URLs url-template forms: each must have a host name a browser can reach. */
import type { MainSettings } from '../../../../src/core/kinds/registry.js'
import { DEFAULT_REQUEST_HANDLING } from '../../../../src/core/settings/request-handling.js'
import {
  checkUrlsBeforeRequest,
  hostProblem,
  urlsFor
} from '../../../../src/core/tunnel/main/urls.js'

const tunnel = (urlTemplate: string, names = ['web']) => ({
  entries: names.map(name => ({ name, host: 'localhost', port: 3000 })),
  urlTemplate,
  hostKeyPins: [],
  ...DEFAULT_REQUEST_HANDLING
})

describe('hostProblem', () => {
  it.each([
    ['web-ab12c.tunnel.example'],
    ['xn--bcher-kva.example'],
    ['a.b.'],
    ['10.0.0.5'],
    ['[::1]']
  ])('accepts %s', host => {
    expect(hostProblem('https://{host}/{name}', host)).toBeUndefined()
  })

  it.each([
    [
      'web-cid_ab12.localhost',
      'the label "web-cid_ab12" holds an underscore, which a host name cannot'
    ],
    ['-web.example', 'the label "-web" starts with a hyphen, which a host name cannot'],
    ['web-.example', 'the label "web-" ends with a hyphen, which a host name cannot'],
    ['a..b', 'it has an empty label (two dots in a row, or a dot at its start)'],
    [
      `${'a'.repeat(64)}.example`,
      `the label "${'a'.repeat(64)}" is 64 characters long, and a label has at most 63`
    ],
    [`${'abcdefgh.'.repeat(28)}com`, 'it is 255 characters long, and a host name has at most 253'],
    ['a%25b.example', 'the label "a%25b" holds a percent sign, which a host name cannot']
  ])('refuses %s: %s', (host, problem) => {
    expect(hostProblem('https://{name}-{user}.{host}', host)).toBe(problem)
  })

  it('refuses an IP address only when the template builds it from {name} or {user}', () => {
    expect(hostProblem('http://10.0.{name}.1/', '10.0.5.1')).toBe(
      'it is an IP address built from {name} or {user}'
    )
    expect(hostProblem('http://{host}:8080/{name}-{user}', '10.0.0.5')).toBeUndefined()
  })
})

const label = (name: string) => `input ${name}`

describe('urlsFor', () => {
  it('forms every entry, in order', () => {
    expect(
      urlsFor(
        tunnel('https://{name}-{user}.{host}:{port}', ['web', 'api']),
        {
          user: 'ab12c',
          host: 'tunnel.example',
          port: 2223
        },
        label
      )
    ).toEqual({
      web: 'https://web-ab12c.tunnel.example:2223',
      api: 'https://api-ab12c.tunnel.example:2223'
    })
  })

  it('names url-template, the URL, the label and the input to change', () => {
    expect(() =>
      urlsFor(
        tunnel('https://{name}-{user}.{host}'),
        {
          user: 'cid_ab12',
          host: 'tunnel.example',
          port: 2223,
          userFrom: { label: 'input client-id', changeable: true }
        },
        label
      )
    ).toThrow(
      'Input url-template forms "https://web-cid_ab12.tunnel.example" for "web", whose host is not a valid host name: ' +
        'the label "web-cid_ab12" holds an underscore, which a host name cannot. The tunnel user comes from input ' +
        'client-id: set it to lower-case letters, digits and inner hyphens, or change input url-template so that {user} is not part of the host name.'
    )
  })

  it('says what to change when the template itself makes a bad label', () => {
    expect(() =>
      urlsFor(
        tunnel('https://{name}_x.{host}'),
        { user: 'ab12c', host: 't.example', port: 1 },
        label
      )
    ).toThrow(
      'the label "web_x" holds an underscore, which a host name cannot. Change input url-template so that every dot-separated label of the host is letters, digits and inner hyphens.'
    )
  })
})

describe('checkUrlsBeforeRequest', () => {
  const base = {
    revoke: true,
    failOnRevokeError: false,
    envPrefix: 'SVC',
    exportEnv: true,
    http: { maxAttempts: 1, timeoutSeconds: 5 },
    optionLabel: (name: string) => `input ${name}`
  }
  const cicd = (tunnelHost: string | undefined, urlTemplate: string): MainSettings => ({
    ...base,
    kind: 'cicd',
    apiKey: 'sk_x',
    project: 'p',
    environment: '',
    baseUrl: 'https://s.test/functions/v1',
    tunnelHost,
    tunnel: tunnel(urlTemplate)
  })

  it('does nothing when the service will name the host', () => {
    expect(() =>
      checkUrlsBeforeRequest(cicd(undefined, 'https://{name}-{user}.{host}'))
    ).not.toThrow()
  })

  it('refuses the default template with an IPv4 tunnel-host, saying nothing was requested', () => {
    expect(() => checkUrlsBeforeRequest(cicd('10.0.0.5', 'https://{name}-{user}.{host}'))).toThrow(
      /tunnel host 10\.0\.0\.5: the tunnel host is an IPv4 address, .* Nothing was requested from the credential service\.$/
    )
  })

  it('accepts an IP tunnel-host that the template keeps alone', () => {
    expect(() =>
      checkUrlsBeforeRequest(cicd('10.0.0.5', 'http://{host}:8080/{name}'))
    ).not.toThrow()
  })

  it('says which user stood in when the service names the real one, and does not blame it', () => {
    expect(() => checkUrlsBeforeRequest(cicd('t.example', 'https://{name}_{user}.{host}'))).toThrow(
      new Error(
        'Input url-template forms "https://web_u.t.example" for "web", whose host is not a valid host name: ' +
          'the label "web_u" holds an underscore, which a host name cannot. Change input url-template so that every ' +
          'dot-separated label of the host is letters, digits and inner hyphens. Nothing was requested from the ' +
          'credential service. (The service names the tunnel user; "u" stood in for it here.)'
      )
    )
  })

  it('with credential existing, checks the tunnel-user it holds and does not ask to rename it', () => {
    const existing: MainSettings = {
      ...base,
      kind: 'existing',
      tunnelToken: 'tok_x',
      tunnelUser: 'proj_user',
      tunnelHost: 't.example',
      tunnelPort: 2223,
      knownUser: { name: 'proj_user', from: { label: 'input tunnel-user', changeable: false } },
      tunnel: tunnel('https://{name}-{user}.{host}')
    }
    expect(() => checkUrlsBeforeRequest(existing)).toThrow(
      'the label "web-proj_user" holds an underscore, which a host name cannot. The tunnel user comes from ' +
        'input tunnel-user, and your token belongs to it: change input url-template so that {user} is not part of ' +
        'the host name. Nothing was requested from the credential service.'
    )
  })
})
