/**
 * The edges of the tunnel's inputs: the exact message of each refusal, the key types a known_hosts
 * line may name, and ports written with leading zeros.
 */
import { createHash } from 'node:crypto'
import {
  parseExpose,
  parseHostKeyPins,
  parseUrlTemplate
} from '../../../src/core/settings/expose.js'

const label = (name: string) => `--${name}`

/** A key blob as SSH writes it: the type as a length-prefixed string, then the key's bytes. */
function keyBlob(type: string): Buffer {
  const name = Buffer.from(type, 'latin1')
  const length = Buffer.alloc(4)
  length.writeUInt32BE(name.length)
  return Buffer.concat([length, name, Buffer.alloc(32, 7)])
}
const fingerprint = (blob: Buffer) =>
  `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`

describe('parseExpose, exactly', () => {
  it.each([
    ['web=00080', { name: 'web', host: 'localhost', port: 80 }],
    ['web=db:08080', { name: 'web', host: 'db', port: 8080 }],
    ['web=[::1]:00022', { name: 'web', host: '::1', port: 22 }]
  ])('reads %j', (raw, entry) => {
    expect(parseExpose(raw, label)).toStrictEqual([entry])
  })

  it.each(['web=000080', 'web=db:000080', 'web=[::1]:000022'])(
    'refuses %j, whose port has more than 5 digits',
    raw => {
      expect(() => parseExpose(raw, label)).toThrow(
        `--expose has the entry "${raw}": the port must be a whole number from 1 to 65535.`
      )
    }
  )

  it('says how to name a bare port among others', () => {
    expect(() => parseExpose('3000, api=3001', label)).toThrow(
      '--expose has the entry "3000": a bare port is allowed only when it is the only entry; give it a name, as in app=3000.'
    )
  })

  it('names the entry given twice', () => {
    expect(() => parseExpose('web=3000,web=3001', label)).toThrow(
      '--expose names "web" more than once: each entry needs its own name, because the name is its public address.'
    )
  })
})

describe('parseUrlTemplate, exactly', () => {
  it('refuses the ##[ marker, which the runner obeys anywhere in a line', () => {
    expect(() => parseUrlTemplate('https://{name}.x/##[a', label)).toThrow(
      '--url-template is "https://{name}.x/\\u0023#[a": it holds "#" followed by "#[", which the log reader of a CI system obeys as a command anywhere in a line. Remove it.'
    )
  })

  it('names the placeholders it knows', () => {
    expect(() => parseUrlTemplate('https://{x}.t', label)).toThrow(
      '--url-template is "https://{x}.t": {x} is not a placeholder; use {name}, {user}, {host}, {fqdn} and {port}.'
    )
    expect(parseUrlTemplate('https://{port}.{user}.t', label)).toBe('https://{port}.{user}.t')
  })

  it('says what a template must form', () => {
    expect(() => parseUrlTemplate('ftp://{name}.t', label)).toThrow(
      '--url-template is "ftp://{name}.t": it does not form an http or https URL, as in https://{name}-{user}.{host}.'
    )
  })
})

describe('parseHostKeyPins, the key types', () => {
  it.each(['ssh-ed25519', 'ecdsa-sha2-nistp256', 'sk-ssh-ed25519@openssh.com', 'ssh-rsa'])(
    'reads a known_hosts line of a %s key',
    type => {
      const blob = keyBlob(type)
      expect(parseHostKeyPins(`host ${type} ${blob.toString('base64')}`, label)).toStrictEqual([
        { fingerprint: fingerprint(blob), keyType: type }
      ])
    }
  )

  it.each(['ssh_ed25519', 'SSH-ED25519', 'x-ssh-ed25519', 'ssh-'])(
    'takes %j for no key type',
    type => {
      const line = `host ${type} ${keyBlob(type).toString('base64')}`
      expect(() => parseHostKeyPins(line, label)).toThrow(
        `--tunnel-host-key has the line "${line.slice(0, 57)}...": expected a SHA256:\u2026 fingerprint or a known_hosts line`
      )
    }
  )

  it('drops the padding of a fingerprint, and keeps the first type it learns', () => {
    const blob = keyBlob('ssh-ed25519')
    const pin = fingerprint(blob)
    expect(
      parseHostKeyPins(
        [`host ssh-ed25519 ${blob.toString('base64')}`, `${pin}=`, '  # note', '   '].join('\n'),
        label
      )
    ).toStrictEqual([{ fingerprint: pin, keyType: 'ssh-ed25519' }])
  })

  it('refuses a fingerprint with more than one = of padding, or a character after it', () => {
    const pin = fingerprint(keyBlob('ssh-ed25519'))
    for (const line of [`${pin}==`, `${pin}=x`, `x${pin}`]) {
      expect(() => parseHostKeyPins(line, label)).toThrow('--tunnel-host-key has the line')
    }
  })
})

describe('parseExpose, the whole entry and the whole port', () => {
  it.each([
    ['x3000', 'expected NAME=PORT, NAME=HOST:PORT, or a bare PORT'],
    ['3000x', 'expected NAME=PORT, NAME=HOST:PORT, or a bare PORT'],
    ['web=db:80x', 'after NAME= comes PORT or HOST:PORT, as in web=3000 or api=db:8080'],
    ['web=db:x80', 'after NAME= comes PORT or HOST:PORT, as in web=3000 or api=db:8080'],
    ['web=x[::1]:80', '"x[::1]" is not a host name or IP address']
  ])('refuses %j', (raw, needs) => {
    expect(() => parseExpose(raw, label)).toThrow(`--expose has the entry "${raw}": ${needs}.`)
  })
})
