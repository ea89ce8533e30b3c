import { parseCredential } from '../../../src/core/service/credential.js'
import { issuedCredential } from '../../../src/core/service/issued-credential.js'

const RAW = {
  token: 'tok_abc',
  tunnel_user: 'ab12c',
  client_id: 'client-1',
  expires_at: '2026-11-23T11:00:00.123+00:00',
  ttl_minutes: 60,
  tunnel_host: 'tunnel.example.test',
  tunnel_port: 2223,
  project_slug: 'web-shop'
}

describe('parseCredential', () => {
  it('turns a documented answer into a credential', () => {
    expect(parseCredential(RAW)).toStrictEqual({
      token: 'tok_abc',
      tunnelUser: 'ab12c',
      clientId: 'client-1',
      tunnelHost: 'tunnel.example.test',
      tunnelPort: 2223,
      portDefaulted: false,
      expiresAt: '2026-11-23T11:00:00.123+00:00',
      ttlMinutes: 60,
      projectSlug: 'web-shop'
    })
  })

  it('uses the client id as tunnel user and client id for a free credential', () => {
    const free = parseCredential({
      tunnel_client_id: 'free-1',
      tunnel_client_secret: 's3cret',
      tunnel_host: '192.0.2.4',
      tunnel_port: 2223
    })
    expect(free).toMatchObject({
      token: 's3cret',
      tunnelUser: 'free-1',
      clientId: 'free-1',
      tunnelHost: '192.0.2.4'
    })
    expect(free.expiresAt).toBeUndefined()
  })

  it('lets overrides replace host and port, even when the service sent none', () => {
    const { tunnel_host: _host, tunnel_port: _port, ...bare } = RAW
    expect(parseCredential(bare, { tunnelHost: 'tunnel.internal', tunnelPort: 22 })).toMatchObject({
      tunnelHost: 'tunnel.internal',
      tunnelPort: 22,
      portDefaulted: false
    })
  })

  it.each([
    ['tunnel_user', 'ab12c##vso[task.setvariable]https://evil.example'],
    ['tunnel_user', 'ab12c##VSO[task.setsecret]x'],
    ['client_id', 'c##vso[task.prependpath]/tmp/evil'],
    ['client_id', 'c#\u034f#vso[task.complete]'],
    ['tunnel_user', '---group']
  ])("refuses %s holding the marker of another system's log reader (%j)", (field, value) => {
    expect(() => parseCredential({ ...RAW, [field]: value })).toThrow(
      `failed validation: ${field} holds a log command marker`
    )
  })

  it.each([
    [{ ...RAW, ttl_minutes: 0 }, 'ttl_minutes is 0 (no expiry), yet expires_at gives an end'],
    [{ ...RAW, ttl_minutes: '60' }, 'ttl_minutes is not a whole number (0: no expiry)'],
    [
      { ...RAW, project_slug: 'a\tb' },
      'project_slug is not a plain string without log command markers'
    ],
    [{ ...RAW, client_id: 'c\u200bd' }, 'client_id holds whitespace or control characters'],
    [{ ...RAW, token: 'tok_\ud800' }, 'token is not well-formed Unicode'],
    [{ ...RAW, tunnel_user: '\udc00ab' }, 'tunnel_user is not well-formed Unicode'],
    [{ ...RAW, client_id: 'c\ud83d' }, 'client_id is not well-formed Unicode'],
    [
      { ...RAW, project_slug: 'web\udfff' },
      'project_slug is not a plain string without log command markers'
    ],
    [{ ...RAW, tunnel_host: 'h\ud800.test' }, 'tunnel_host is not a bare hostname or IP address'],
    [{ ...RAW, expires_at: '2026-11-23T11:00:00Z\ud800' }, 'expires_at is not an ISO 8601 time'],
    [{ ...RAW, tunnel_port: '22a' }, 'tunnel_port is not a whole number from 1 to 65535'],
    [{ ...RAW, tunnel_port: 22.5 }, 'tunnel_port is not a whole number from 1 to 65535'],
    [{ ...RAW, tunnel_host: 42 }, 'tunnel_host is not a bare hostname or IP address'],
    [{ ...RAW, expires_at: '2026-13-45T99:00:00Z' }, 'expires_at is not an ISO 8601 time'],
    [
      { ...RAW, tunnel_user: undefined, tunnel_client_id: 'tok_abc' },
      'tunnel_user holds the token, or a long piece of it'
    ],
    [{ ...RAW, tunnel_user: 'tok_abc' }, 'tunnel_user holds the token, or a long piece of it'],
    [{ ...RAW, client_id: 'id-tok_abc' }, 'client_id holds the token, or a long piece of it'],
    [
      { ...RAW, client_id: undefined, tunnel_client_id: 'tok_abc' },
      'tunnel_user and tunnel_client_id differ, so the answer names two credentials'
    ],
    [
      { ...RAW, token: undefined, tunnel_client_secret: 'tok_2', client_id: 'tok_2' },
      'client_id holds the token, or a long piece of it'
    ],
    [
      { ...RAW, tunnel_client_secret: 'tok_2' },
      'token and tunnel_client_secret differ, so the answer names two credentials'
    ],
    [
      { ...RAW, tunnel_user: 'ab12c##[add-mask]x' },
      'tunnel_user holds a log command marker (such as "::", or "#" followed by "#[" or "#vso[")'
    ],
    [
      { ...RAW, tunnel_user: '::stop-commands::x' },
      'tunnel_user holds a log command marker (such as "::", or "#" followed by "#[" or "#vso[")'
    ],
    [
      { ...RAW, client_id: 'c##[set-env]y' },
      'client_id holds a log command marker (such as "::", or "#" followed by "#[" or "#vso[")'
    ],
    [null, 'the body is not a JSON object'],
    ['tok_abc', 'the body is not a JSON object']
  ])('rejects %j', (raw, problem) => {
    expect(() => parseCredential(raw)).toThrow(`failed validation: ${problem}.`)
  })
})

describe('issuedCredential', () => {
  const named = (tunnelUser: string) => ({ tunnelUser, nameable: true, savable: true })
  it('names the user once token and user pass their own checks, whatever else is wrong', () => {
    expect(issuedCredential({ ...RAW, tunnel_host: undefined, expires_at: 'x' })).toStrictEqual(
      named('ab12c')
    )
    expect(
      issuedCredential({ tunnel_client_secret: 's', tunnel_client_id: 'free-1' })
    ).toStrictEqual(named('free-1'))
    // Refused later for the marker, but issued all the same: it must be revoked.
    expect(issuedCredential({ ...RAW, tunnel_user: 'ab12c##[add-mask]x' })).toStrictEqual(
      named('ab12c##[add-mask]x')
    )
  })
  it.each([
    [{ ...RAW, tunnel_user: undefined, tunnel_client_id: 'tok_abc' }, 'tok_abc'],
    [{ ...RAW, tunnel_user: 'u-tok_abc-1' }, 'u-tok_abc-1'],
    [{ ...RAW, tunnel_client_secret: 'tok_other', tunnel_user: 'tok_other' }, 'tok_other']
  ])('marks a user that holds a secret as not to be named: %j', (raw, tunnelUser) => {
    expect(issuedCredential(raw)).toStrictEqual({ tunnelUser, nameable: false, savable: false })
  })
  it.each([
    [{ ...RAW, token: '' }],
    [{ ...RAW, token: undefined }],
    [{ ...RAW, token: 'tok_\ud800' }],
    [{ ...RAW, token: 'tok_ab\u200bcd' }],
    [{ ...RAW, token: 'tok_ab\u202ecd' }]
  ])('names the user whatever its token, since the service issued it: %j', raw => {
    expect(issuedCredential(raw)).toStrictEqual(named('ab12c'))
  })
  it.each(['a b', 'b\u00e9la\u202ecod', 'ab\u200b', 'ab\udc00'])(
    'names a user that state cannot carry, to revoke at once only: %j',
    tunnelUser => {
      expect(issuedCredential({ ...RAW, tunnel_user: tunnelUser })).toStrictEqual({
        tunnelUser,
        nameable: true,
        savable: false
      })
    }
  )
  it.each([
    [{ ...RAW, tunnel_user: '' }],
    [{ ...RAW, tunnel_user: 7 }],
    [{ ...RAW, tunnel_user: ['ab12c', 'cd34e'] }],
    [[RAW]],
    [null]
  ])('names none for %j', raw => expect(issuedCredential(raw)).toBeUndefined())
  it('accepts a well-formed pair of surrogates', () => {
    expect(issuedCredential({ ...RAW, tunnel_user: 'ab\ud83d\ude00' })).toStrictEqual(
      named('ab\ud83d\ude00')
    )
  })
})
