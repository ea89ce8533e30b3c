import { createHash } from 'node:crypto'
import { ed25519KeyPair } from '../../../service/__tests__/helpers/ed25519.js'
import {
  SPEC_SHAPE_TEMPLATE,
  formatUrl,
  parseExpose,
  parseHostKeyPins,
  parseUrlTemplate,
  readTunnelSettings
} from '../../../src/core/settings/expose.js'

/** The action's labels; a CLI host would say `--expose`. */
const label = (name: string) => `input ${name}`

describe('parseExpose', () => {
  it('reads NAME=PORT, NAME=HOST:PORT and NAME=[IPv6]:PORT, one per line or comma-separated', () => {
    expect(
      parseExpose('web=3000\napi=db:8080, v4=127.0.0.1:81,\n\n v6 = [::1]:9000 ', label)
    ).toEqual([
      { name: 'web', host: 'localhost', port: 3000 },
      { name: 'api', host: 'db', port: 8080 },
      { name: 'v4', host: '127.0.0.1', port: 81 },
      { name: 'v6', host: '::1', port: 9000 }
    ])
  })

  it('names a bare PORT "app" when it is the only entry', () => {
    expect(parseExpose(' 3000 ', label)).toEqual([{ name: 'app', host: 'localhost', port: 3000 }])
  })

  it('reads nothing from an empty input', () => {
    expect(parseExpose('', label)).toEqual([])
    expect(parseExpose(' \n , ', label)).toEqual([])
  })

  it('accepts names of 1 and 63 characters and ports 1 and 65535', () => {
    const long = `a${'-'.repeat(61)}b`
    expect(parseExpose(`x=1,${long}=65535`, label)).toEqual([
      { name: 'x', host: 'localhost', port: 1 },
      { name: long, host: 'localhost', port: 65535 }
    ])
  })

  it.each([
    [
      '3000,web=3001',
      '"3000"',
      'a bare port is allowed only when it is the only entry; give it a name, as in app=3000'
    ],
    ['web', '"web"', 'expected NAME=PORT, NAME=HOST:PORT, or a bare PORT'],
    ['Web=3000', '"Web=3000"', 'the name must be a lower-case DNS label'],
    ['-web=3000', '"-web=3000"', 'the name must be a lower-case DNS label'],
    ['web-=3000', '"web-=3000"', 'the name must be a lower-case DNS label'],
    [`${'a'.repeat(64)}=3000`, '"aaaa', 'the name must be a lower-case DNS label'],
    ['my_app=3000', '"my_app=3000"', 'the name must be a lower-case DNS label'],
    ['=3000', '"=3000"', 'the name must be a lower-case DNS label'],
    ['web=', '"web="', 'after NAME= comes PORT or HOST:PORT'],
    ['web=db', '"web=db"', 'after NAME= comes PORT or HOST:PORT'],
    ['web=db:', '"web=db:"', 'after NAME= comes PORT or HOST:PORT'],
    ['web=:3000', '"web=:3000"', 'after NAME= comes PORT or HOST:PORT'],
    ['web=db:http', '"web=db:http"', 'after NAME= comes PORT or HOST:PORT'],
    ['web=0', '"web=0"', 'the port must be a whole number from 1 to 65535'],
    ['web=65536', '"web=65536"', 'the port must be a whole number from 1 to 65535'],
    ['web=db:123456', '"web=db:123456"', 'the port must be a whole number from 1 to 65535'],
    ['0', '"0"', 'the port must be a whole number from 1 to 65535'],
    ['web=::1:3000', '"web=::1:3000"', 'write an IPv6 address in square brackets'],
    ['web=[db]:3000', '"web=[db]:3000"', 'square brackets hold an IPv6 address'],
    ['web=db host:3000', '"web=db host:3000"', '"db host" is not a host name or IP address'],
    ['web=http://db:3000', '"web=http://db:3000"', 'is not a host name or IP address']
  ])('refuses %j, naming the entry and what it needs', (raw, entry, needs) => {
    let message = ''
    try {
      parseExpose(raw, label)
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toContain(`Input expose has the entry ${entry}`)
    expect(message).toContain(needs)
  })

  it('refuses a name given twice', () => {
    expect(() => parseExpose('web=3000\nweb=db:3001', label)).toThrow(
      'Input expose names "web" more than once'
    )
  })
})

describe('parseUrlTemplate and formatUrl', () => {
  it('keeps an empty template empty, for the answer to choose the form', () => {
    expect(parseUrlTemplate('  ', label)).toBe('')
    expect(
      formatUrl(SPEC_SHAPE_TEMPLATE, {
        name: 'web',
        user: 'u1',
        host: 't.example',
        fqdn: 'f.example',
        port: 2223
      })
    ).toBe('https://web-u1.t.example')
  })

  it('fills every placeholder, as often as it appears', () => {
    const template = parseUrlTemplate(
      'http://{name}-{user}.localhost:8080/{host}/{port}/{name}/{fqdn}',
      label
    )
    expect(formatUrl(template, { name: 'a', user: 'b', host: 'c', fqdn: 'd.e', port: 22 })).toBe(
      'http://a-b.localhost:8080/c/22/a/d.e'
    )
  })

  it.each([
    [
      'https://{name}.{tunnel}',
      '{tunnel} is not a placeholder; use {name}, {user}, {host}, {fqdn} and {port}.'
    ],
    ['https://{name}.{client_id}', '{client_id} is not a placeholder'],
    ['https://{Name}.example', '{Name} is not a placeholder'],
    ['https://{}.example', '{} is not a placeholder'],
    ['ftp://{name}.example', 'it does not form an http or https URL'],
    ['{name}-{user}.{host}', 'it does not form an http or https URL'],
    ['https://{name} {user}', 'it does not form an http or https URL']
  ])('refuses %j', (template, why) => {
    expect(() => parseUrlTemplate(template, label)).toThrow(
      `Input url-template is ${JSON.stringify(template)}: ${why}`
    )
  })

  it('gives undefined when real values do not form a URL', () => {
    expect(
      formatUrl('https://{host}', { name: 'a', user: 'b', host: 'bad host', fqdn: 'f', port: 1 })
    ).toBe(undefined)
  })
})

describe('parseHostKeyPins', () => {
  const pair = ed25519KeyPair()
  const [type, base64] = pair.public.trim().split(/\s+/)
  const blob = Buffer.from(base64, 'base64')
  const expected = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`

  it('reads fingerprints, known_hosts lines and .pub lines; skips blanks, comments and repeats', () => {
    const raw = [
      `${expected}=`,
      '',
      '# the tunnel server',
      `[tunnel.example]:2223,10.0.0.1 ${type} ${base64}`,
      `|1|aGFzaGVk|aGFzaA== ${type} ${base64} comment here`,
      `${type} ${base64} user@host`,
      'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU'
    ].join('\r\n')
    // The key's type comes from its known_hosts line, though a bare fingerprint named it first.
    expect(parseHostKeyPins(raw, label)).toEqual([
      { fingerprint: expected, keyType: type },
      { fingerprint: 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU' }
    ])
  })

  it('reads nothing from an empty input', () => {
    expect(parseHostKeyPins('', label)).toEqual([])
  })

  it.each([
    ['SHA256:short', 'a fingerprint is SHA256: followed by 43 base64 characters'],
    ['MD5:aa:bb', 'expected a SHA256:… fingerprint or a known_hosts line'],
    ['tunnel.example', 'expected a SHA256:… fingerprint or a known_hosts line'],
    ['tunnel.example ssh-ed25519', 'expected a SHA256:… fingerprint or a known_hosts line'],
    ['a b ssh-ed25519 AAAA', 'expected a SHA256:… fingerprint or a known_hosts line'],
    [`@cert-authority * ${'ssh-ed25519'} AAAA`, '@cert-authority lines are not supported'],
    ['host ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIA', 'the key after ssh-rsa is not a valid ssh-rsa key'],
    ['host ssh-ed25519 not*base64', 'the key after ssh-ed25519 is not a valid ssh-ed25519 key'],
    ['host ssh-ed25519 AAAA', 'the key after ssh-ed25519 is not a valid ssh-ed25519 key']
  ])('refuses %j, naming the line', (line, why) => {
    expect(() => parseHostKeyPins(line, label)).toThrow(`Input tunnel-host-key has the line`)
    expect(() => parseHostKeyPins(line, label)).toThrow(why)
  })

  it('refuses a known_hosts line whose key type does not match its key', () => {
    expect(() => parseHostKeyPins(`host ssh-rsa ${base64}`, label)).toThrow(
      'the key after ssh-rsa is not a valid ssh-rsa key in base64'
    )
  })
})

describe('readTunnelSettings', () => {
  const reader = (values: Record<string, string>) => ({
    read: (name: string) => values[name] ?? '',
    label
  })

  it('gives nothing without expose, but still checks the other two inputs', () => {
    expect(readTunnelSettings(reader({}))).toBeUndefined()
    expect(() => readTunnelSettings(reader({ 'url-template': 'https://{x}' }))).toThrow(
      'Input url-template'
    )
    expect(() => readTunnelSettings(reader({ 'tunnel-host-key': 'nonsense' }))).toThrow(
      'Input tunnel-host-key'
    )
  })

  it('collects entries, template and pins', () => {
    expect(
      readTunnelSettings(
        reader({
          expose: '8080',
          'url-template': 'http://{name}.{host}',
          'tunnel-host-key': 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU'
        })
      )
    ).toEqual({
      entries: [{ name: 'app', host: 'localhost', port: 8080 }],
      urlTemplate: 'http://{name}.{host}',
      hostKeyPins: [{ fingerprint: 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU' }],
      requestLog: { enabled: true, bodyBytes: 0, headers: 'redacted' },
      protect: false,
      proveUrl: true
    })
  })
})
