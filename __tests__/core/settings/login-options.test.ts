import {
  readApiKey,
  readTunnelHost,
  readTunnelPort,
  readTunnelToken,
  readTunnelUser,
  readTunnelServer,
  requireTunnelServer
} from '../../../src/core/settings/login-options.js'
import { optionsFrom } from '../../helpers/options.js'

const cli = (name: string) => `--${name}`
const KEY = `sk_${'ab'.repeat(32)}`

describe('readApiKey', () => {
  it('reads a well-formed key', () => {
    expect(readApiKey(optionsFrom({ 'api-key': ` ${KEY} ` }), 'cicd')).toBe(KEY)
  })
  it('says the kind needs it, and never quotes a malformed one', () => {
    expect(() => readApiKey(optionsFrom({}, cli), 'ssh-key')).toThrow(
      /^--api-key is empty, and --credential is "ssh-key", which needs it\./
    )
    let message = ''
    try {
      readApiKey(optionsFrom({ 'api-key': 'sk_secretish' }, cli), 'cicd')
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toMatch(/^--api-key is not an API key/)
    expect(message).not.toContain('secretish')
  })
})

describe('tunnel host and port', () => {
  it('reads a bare host and a port, or nothing', () => {
    expect(readTunnelHost(optionsFrom({ 'tunnel-host': ' t.example ' }))).toBe('t.example')
    expect(readTunnelHost(optionsFrom({}))).toBeUndefined()
    expect(readTunnelPort(optionsFrom({ 'tunnel-port': '22' }))).toBe(22)
  })
  it('refuses a host with a scheme or port, and a port out of range', () => {
    expect(() => readTunnelHost(optionsFrom({ 'tunnel-host': 'ssh://t:22' }, cli))).toThrow(
      '--tunnel-host is "ssh://t:22": expected a bare hostname or IP address, without scheme, port or path.'
    )
    expect(() => readTunnelPort(optionsFrom({ 'tunnel-port': '65536' }, cli))).toThrow(
      '--tunnel-port is "65536": expected a whole number from 1 to 65535.'
    )
  })
  it('says why a kind needs the host when it is empty', () => {
    expect(() => requireTunnelServer({}, optionsFrom({}, cli), 'existing', 'why.')).toThrow(
      '--tunnel-host is empty, and credential is "existing", which needs it: why.'
    )
  })

  it('gives the port 2223 when the options name the host alone', () => {
    const options = optionsFrom({ 'tunnel-host': 't.example' }, cli)
    expect(requireTunnelServer(readTunnelServer(options), options, 'ssh-key', 'why.')).toEqual({
      tunnelHost: 't.example',
      tunnelPort: 2223
    })
  })
})

describe('readTunnelToken', () => {
  it('refuses an empty token or one with whitespace, never showing it', () => {
    expect(() => readTunnelToken(optionsFrom({}, cli), 'existing')).toThrow(
      /^--tunnel-token is empty, and credential is "existing"/
    )
    expect(() =>
      readTunnelToken(optionsFrom({ 'tunnel-token': 'tok a' }, cli), 'existing')
    ).toThrow(
      '--tunnel-token holds whitespace or control characters: check that the secret holds the token alone, on one line.'
    )
  })
})

describe('readTunnelUser', () => {
  const read = (value: string, secrets: string[] = []) =>
    readTunnelUser(
      optionsFrom({ 'tunnel-user': value }, cli),
      'tunnel-user',
      'existing',
      'the user',
      { changeable: false, secrets }
    ).name
  it('reads one clean word', () => expect(read(' u-1 ')).toBe('u-1'))
  it('says which option named it, as the host labels it', () =>
    expect(
      readTunnelUser(optionsFrom({ 'client-id': 'c-1' }, cli), 'client-id', 'ssh-key', 'x', {
        changeable: true
      })
    ).toStrictEqual({ name: 'c-1', from: { label: '--client-id', changeable: true } }))
  it.each([
    [
      '',
      '--tunnel-user is empty, and credential is "existing", which needs it: set it to the user.'
    ],
    [
      'a::b',
      '--tunnel-user is "a::b": expected a user name without spaces, control characters or log command markers ("::", or "#" followed by "#[" or "#vso[").'
    ],
    [
      'a b',
      '--tunnel-user is "a b": expected a user name without spaces, control characters or log command markers ("::", or "#" followed by "#[" or "#vso[").'
    ]
  ])('refuses %j', (value, message) => expect(() => read(value)).toThrow(message))
  it('refuses the token as the user without quoting it', () => {
    expect(() => read('tok_3f9a8b7c6d5e', ['tok_3f9a8b7c6d5e'])).toThrow(
      '--tunnel-user holds the tunnel-token, or a long piece of it: check that the two inputs are not swapped.'
    )
  })
})

describe('readTunnelUser, at its length limit', () => {
  const read = (value: string) =>
    readTunnelUser(optionsFrom({ 'tunnel-user': value }, cli), 'tunnel-user', 'existing', 'x', {
      changeable: false
    })
  it('accepts 200 characters, and refuses 201 quoting the start', () => {
    expect(read('u'.repeat(200)).name).toBe('u'.repeat(200))
    expect(() => read('u'.repeat(201))).toThrow(
      `--tunnel-user is "${'u'.repeat(57)}...": expected a user name without spaces, control characters or log command markers ("::", or "#" followed by "#[" or "#vso[").`
    )
  })
})
