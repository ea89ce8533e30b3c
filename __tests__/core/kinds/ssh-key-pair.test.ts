import { execFileSync } from 'node:child_process'
import { createPublicKey, verify } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { utils } from 'ssh2'
import {
  ed25519PublicKeyOf,
  encodeSshKeyPair,
  generateSshKeyPair,
  type SshKeyPair
} from '../../../src/core/kinds/ssh-key-pair.js'

// RFC 8032, section 7.1, test 1: a published seed and the public key it yields.
const RFC_SEED = Buffer.from(
  '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
  'hex'
)
const RFC_PUBLIC = Buffer.from(
  'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
  'hex'
)

let folder: string
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'ssh-key-pair-'))
})
afterAll(() => rmSync(folder, { recursive: true, force: true }))

/** Writes the pair as `ssh` expects it: the private key readable by its owner only. */
function writePair(pair: SshKeyPair, name: string): { keyFile: string; publicFile: string } {
  const keyFile = join(folder, name)
  writeFileSync(keyFile, pair.privateKeyFile, { mode: 0o600 })
  writeFileSync(`${keyFile}.pub`, `${pair.publicKeyLine}\n`)
  return { keyFile, publicFile: `${keyFile}.pub` }
}

function sshKeygen(...args: string[]): string {
  return execFileSync('ssh-keygen', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

/** The private section of an unencrypted key file, decoded by hand from PROTOCOL.key. */
function privateSection(file: string): Buffer {
  const base64 = file
    .split('\n')
    .filter(line => line && !line.startsWith('-----'))
    .join('')
  const body = Buffer.from(base64, 'base64')
  let offset = 'openssh-key-v1\0'.length
  const readString = (): Buffer => {
    const length = body.readUInt32BE(offset)
    const value = body.subarray(offset + 4, offset + 4 + length)
    offset += 4 + length
    return value
  }
  readString() // cipher
  readString() // kdf
  readString() // kdf options
  offset += 4 // number of keys
  readString() // public key blob
  return readString()
}

describe('ed25519PublicKeyOf', () => {
  it('derives the RFC 8032 public key from its seed', () => {
    expect(ed25519PublicKeyOf(RFC_SEED)).toEqual(RFC_PUBLIC)
  })
})

describe('encodeSshKeyPair', () => {
  const pair = encodeSshKeyPair({
    seed: RFC_SEED,
    publicKey: RFC_PUBLIC,
    comment: 'ci-octo-org-web-shop-123-1',
    checkInt: 0xdeadbeef
  })

  it('writes the public key line as type, base64 blob of type and key, and comment', () => {
    const [type, blob, comment] = pair.publicKeyLine.split(' ')
    expect(type).toBe('ssh-ed25519')
    expect(comment).toBe('ci-octo-org-web-shop-123-1')
    const bytes = Buffer.from(blob, 'base64')
    expect(bytes.readUInt32BE(0)).toBe(11)
    expect(bytes.subarray(4, 15).toString()).toBe('ssh-ed25519')
    expect(bytes.readUInt32BE(15)).toBe(32)
    expect(bytes.subarray(19)).toEqual(RFC_PUBLIC)
  })

  it('computes the fingerprint OpenSSH prints for the same key', () => {
    const { publicFile } = writePair(pair, 'rfc')
    expect(sshKeygen('-l', '-f', publicFile).trim()).toBe(
      `256 ${pair.fingerprint} ci-octo-org-web-shop-123-1 (ED25519)`
    )
    expect(pair.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/)
  })

  it('writes a key file from which ssh-keygen derives the same public key line', () => {
    const { keyFile } = writePair(pair, 'rfc-private')
    expect(sshKeygen('-y', '-f', keyFile).trim()).toBe(pair.publicKeyLine)
  })

  it('holds two equal check ints, the 64-byte seed+public key and padding 1, 2, 3…', () => {
    const section = privateSection(pair.privateKeyFile)
    expect(section.length % 8).toBe(0)
    expect(section.readUInt32BE(0)).toBe(0xdeadbeef)
    expect(section.readUInt32BE(4)).toBe(0xdeadbeef)
    expect(section.includes(Buffer.concat([RFC_SEED, RFC_PUBLIC]))).toBe(true)
    const comment = Buffer.from('ci-octo-org-web-shop-123-1')
    const padding = section.subarray(section.indexOf(comment) + comment.length)
    expect([...padding]).toEqual(Array.from({ length: padding.length }, (_, i) => i + 1))
  })

  it('frames the file as OpenSSH does, with base64 lines of at most 70 characters', () => {
    const lines = pair.privateKeyFile.split('\n')
    expect(lines[0]).toBe('-----BEGIN OPENSSH PRIVATE KEY-----')
    expect(lines.at(-2)).toBe('-----END OPENSSH PRIVATE KEY-----')
    expect(lines.at(-1)).toBe('')
    expect(lines.slice(1, -2).every(line => line.length > 0 && line.length <= 70)).toBe(true)
  })

  it('pads for every comment length, as ssh-keygen checks', () => {
    for (const comment of ['', 'a', 'ab', 'abc', 'abcd', 'abcde', 'abcdef', 'abcdefg']) {
      const padded = encodeSshKeyPair({
        seed: RFC_SEED,
        publicKey: RFC_PUBLIC,
        comment,
        checkInt: 7
      })
      expect(privateSection(padded.privateKeyFile).length % 8).toBe(0)
      const { keyFile } = writePair(padded, `pad-${comment.length}`)
      expect(sshKeygen('-y', '-f', keyFile).trim()).toBe(padded.publicKeyLine)
    }
  })

  it('leaves the comment off the line when there is none', () => {
    const bare = encodeSshKeyPair({
      seed: RFC_SEED,
      publicKey: RFC_PUBLIC,
      comment: '',
      checkInt: 1
    })
    expect(bare.publicKeyLine.split(' ')).toHaveLength(2)
  })

  it('refuses a comment that would break the line', () => {
    for (const comment of ['a\nb', 'a\rb', 'a\u2028b', 'a\u0000b']) {
      expect(() =>
        encodeSshKeyPair({ seed: RFC_SEED, publicKey: RFC_PUBLIC, comment, checkInt: 1 })
      ).toThrow('must not hold line breaks or control characters')
    }
  })

  it('refuses key material of the wrong size', () => {
    expect(() =>
      encodeSshKeyPair({
        seed: RFC_SEED.subarray(1),
        publicKey: RFC_PUBLIC,
        comment: '',
        checkInt: 1
      })
    ).toThrow('32 bytes')
  })
})

describe('generateSshKeyPair', () => {
  it('makes a pair that OpenSSH reads back: same fingerprint, same public line', () => {
    const pair = generateSshKeyPair('ci-octo-org-web-shop-42-2')
    const { keyFile, publicFile } = writePair(pair, 'fresh')
    expect(sshKeygen('-l', '-f', publicFile).trim()).toBe(
      `256 ${pair.fingerprint} ci-octo-org-web-shop-42-2 (ED25519)`
    )
    expect(sshKeygen('-l', '-f', keyFile).trim()).toContain(pair.fingerprint)
    expect(sshKeygen('-y', '-f', keyFile).trim()).toBe(pair.publicKeyLine)
  })

  it('makes a key file that ssh2 parses and signs with, verifiable by the public key', () => {
    const pair = generateSshKeyPair('ci-octo-org-web-shop-42-2')
    const parsed = utils.parseKey(pair.privateKeyFile)
    if (parsed instanceof Error) throw parsed
    expect(parsed.type).toBe('ssh-ed25519')
    expect(parsed.comment).toBe('ci-octo-org-web-shop-42-2')
    expect(parsed.isPrivateKey()).toBe(true)
    expect(parsed.getPublicSSH().toString('base64')).toBe(pair.publicKeyLine.split(' ')[1])
    const signature = parsed.sign(Buffer.from('challenge'))
    const publicKey = createPublicKey(parsed.getPublicPEM())
    expect(verify(null, Buffer.from('challenge'), publicKey, signature)).toBe(true)
  })

  it('makes a different key every time', () => {
    const first = generateSshKeyPair('x')
    const second = generateSshKeyPair('x')
    expect(first.fingerprint).not.toBe(second.fingerprint)
    expect(first.privateKeyFile).not.toBe(second.privateKeyFile)
  })
})
