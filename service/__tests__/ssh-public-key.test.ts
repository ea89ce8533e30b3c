/** Public key lines as keys-upload reads them: the three accepted types, and what is refused. */
import { execFileSync } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ssh2 from 'ssh2'
import { parseSshPublicKey, sshFingerprint } from '../ssh-public-key.js'

const publicLine = (type: 'ed25519' | 'ecdsa' | 'rsa'): string =>
  ssh2.utils
    .generateKeyPairSync(
      type,
      type === 'ecdsa' ? { bits: 256 } : type === 'rsa' ? { bits: 2048 } : {}
    )
    .public.trim()

/** The SSH wire format's length-prefixed string. */
const sshString = (value: Buffer | string): Buffer => {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'latin1') : value
  const length = Buffer.alloc(4)
  length.writeUInt32BE(bytes.length)
  return Buffer.concat([length, bytes])
}
const lineOf = (type: string, ...fields: Buffer[]): string =>
  `${type} ${Buffer.concat(fields).toString('base64')}`
const blobOf = (line: string): Buffer => Buffer.from(line.split(' ')[1], 'base64')

describe('parseSshPublicKey', () => {
  it.each(['ed25519', 'ecdsa', 'rsa'] as const)('accepts a %s key line, comment or not', type => {
    const line = publicLine(type)
    const parsed = parseSshPublicKey(`${line} someone@example\n`)
    expect(parsed.line).toBe(line)
    expect(parsed.type).toBe(line.split(' ')[0])
    expect(parsed.blob.equals(blobOf(line))).toBe(true)
  })

  it("computes the fingerprint OpenSSH's ssh-keygen -l prints", () => {
    const dir = mkdtempSync(join(tmpdir(), 'fingerprint-'))
    try {
      for (const type of ['ed25519', 'ecdsa', 'rsa'] as const) {
        const line = publicLine(type)
        writeFileSync(join(dir, 'key.pub'), `${line}\n`)
        const printed = execFileSync('ssh-keygen', ['-l', '-f', join(dir, 'key.pub')], {
          encoding: 'utf8'
        })
        expect(printed.split(' ')[1]).toBe(sshFingerprint(parseSshPublicKey(line).blob))
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  const ed25519 = publicLine('ed25519')
  const ed25519Blob = blobOf(ed25519)
  const rsa512 = generateKeyPairSync('rsa', { modulusLength: 512 }).publicKey.export({
    format: 'jwk'
  })
  const mpint = (base64url: string): Buffer => {
    const bytes = Buffer.from(base64url, 'base64url')
    return sshString((bytes[0] & 0x80) === 0 ? bytes : Buffer.concat([Buffer.from([0]), bytes]))
  }
  const point = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)])

  it.each([
    ['an empty line', '', /key type must be one of ssh-ed25519, ecdsa-sha2-nistp256, ssh-rsa/],
    ['a DSA key', lineOf('ssh-dss', sshString('ssh-dss')), /key type must be one of/],
    [
      'a security-key type',
      `sk-ssh-ed25519@openssh.com ${ed25519.split(' ')[1]}`,
      /key type must be one of/
    ],
    ['a private key', '-----BEGIN OPENSSH PRIVATE KEY-----', /key type must be one of/],
    ['a type alone', 'ssh-ed25519', /followed by the base64 key blob/],
    ['a blob that is not base64', 'ssh-ed25519 AAAA$$$$', /followed by the base64 key blob/],
    ['base64 of a wrong length', `${ed25519}A`, /not valid base64/],
    ['two lines', `${ed25519}\n${ed25519}`, /single line/],
    ['authorized_keys options first', `no-pty ${ed25519}`, /key type must be one of/],
    [
      'a type word that disagrees with the blob',
      `ssh-rsa ${ed25519.split(' ')[1]}`,
      /the line says ssh-rsa but the key blob says "ssh-ed25519"/
    ],
    [
      'a blob cut short',
      `ssh-ed25519 ${ed25519Blob.subarray(0, 40).toString('base64')}`,
      /ends inside the ed25519 key/
    ],
    [
      'a blob with trailing bytes',
      `ssh-ed25519 ${Buffer.concat([ed25519Blob, Buffer.from([0])]).toString('base64')}`,
      /trailing bytes/
    ],
    [
      'an ed25519 key of the wrong size',
      lineOf('ssh-ed25519', sshString('ssh-ed25519'), sshString(Buffer.alloc(31))),
      /must be 32 bytes/
    ],
    [
      'an ECDSA key on another curve',
      lineOf(
        'ecdsa-sha2-nistp256',
        sshString('ecdsa-sha2-nistp256'),
        sshString('nistp384'),
        sshString(point)
      ),
      /curve name in the blob must be nistp256/
    ],
    [
      'an ECDSA point that is compressed',
      lineOf(
        'ecdsa-sha2-nistp256',
        sshString('ecdsa-sha2-nistp256'),
        sshString('nistp256'),
        sshString(Buffer.concat([Buffer.from([2]), Buffer.alloc(32, 1)]))
      ),
      /65 bytes, uncompressed/
    ],
    [
      'an RSA key of 512 bits',
      lineOf('ssh-rsa', sshString('ssh-rsa'), mpint(rsa512.e ?? ''), mpint(rsa512.n ?? '')),
      /at least 1024 bits, this one has 512/
    ],
    [
      'an RSA modulus with the sign bit set',
      lineOf('ssh-rsa', sshString('ssh-rsa'), mpint('AQAB'), sshString(Buffer.alloc(256, 0xff))),
      /modulus is not a positive integer/
    ],
    [
      'an RSA key without its modulus',
      lineOf('ssh-rsa', sshString('ssh-rsa'), mpint('AQAB')),
      /ends before the RSA modulus/
    ]
  ])('refuses %s', (_label, line, message) => {
    expect(() => parseSshPublicKey(line)).toThrow(message)
  })
})
