/**
 * An OpenSSH public key line (`<type> <base64 blob> [comment]`) checked the way a server would:
 * the blob is decoded and walked field by field, so a line whose type word disagrees with the
 * blob, or whose blob is cut short or padded, is refused instead of stored. Pure: no I/O.
 */
import { createHash } from 'node:crypto'

export const SSH_KEY_TYPES = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ssh-rsa'] as const
export type SshKeyType = (typeof SSH_KEY_TYPES)[number]

/** OpenSSH refuses RSA keys below 1024 bits; the stand-in does the same. */
export const RSA_MIN_BITS = 1024

export interface SshPublicKey {
  type: SshKeyType
  /** The decoded key blob: what the fingerprint is taken of and what a client signs with. */
  blob: Buffer
  /** `<type> <base64>`, the comment dropped. */
  line: string
}

export class PublicKeyError extends Error {}

/** Reads the SSH wire format's length-prefixed strings, failing on any overrun. */
class BlobReader {
  private offset = 0

  constructor(private readonly blob: Buffer) {}

  string(what: string): Buffer {
    if (this.offset + 4 > this.blob.length)
      throw new PublicKeyError(`the key blob ends before ${what}`)
    const length = this.blob.readUInt32BE(this.offset)
    const start = this.offset + 4
    if (start + length > this.blob.length)
      throw new PublicKeyError(`the key blob ends inside ${what}`)
    this.offset = start + length
    return this.blob.subarray(start, start + length)
  }

  /** A positive mpint: no sign bit set, no superfluous leading zero byte. */
  positiveMpint(what: string): Buffer {
    const value = this.string(what)
    if (value.length === 0 || (value[0] & 0x80) !== 0) {
      throw new PublicKeyError(`${what} is not a positive integer`)
    }
    if (value[0] === 0 && (value.length === 1 || (value[1] & 0x80) === 0)) {
      throw new PublicKeyError(`${what} has a superfluous leading zero`)
    }
    return value[0] === 0 ? value.subarray(1) : value
  }

  end(): void {
    if (this.offset !== this.blob.length)
      throw new PublicKeyError('the key blob has trailing bytes')
  }
}

const bitLength = (magnitude: Buffer): number =>
  magnitude.length === 0 ? 0 : (magnitude.length - 1) * 8 + magnitude[0].toString(2).length

/** Checks the fields that follow the type name in the blob, for each accepted type. */
function checkKeyFields(type: SshKeyType, reader: BlobReader): void {
  switch (type) {
    case 'ssh-ed25519':
      if (reader.string('the ed25519 key').length !== 32) {
        throw new PublicKeyError('an ed25519 key must be 32 bytes')
      }
      break
    case 'ecdsa-sha2-nistp256': {
      if (reader.string('the curve name').toString('latin1') !== 'nistp256') {
        throw new PublicKeyError('the curve name in the blob must be nistp256')
      }
      const point = reader.string('the curve point')
      // Uncompressed point: 0x04, then 32-byte x and y.
      if (point.length !== 65 || point[0] !== 0x04) {
        throw new PublicKeyError('the nistp256 point must be 65 bytes, uncompressed')
      }
      break
    }
    case 'ssh-rsa': {
      reader.positiveMpint('the RSA exponent')
      const bits = bitLength(reader.positiveMpint('the RSA modulus'))
      if (bits < RSA_MIN_BITS) {
        throw new PublicKeyError(
          `an RSA key needs at least ${RSA_MIN_BITS} bits, this one has ${bits}`
        )
      }
      break
    }
  }
  reader.end()
}

const isKeyType = (value: string): value is SshKeyType =>
  (SSH_KEY_TYPES as readonly string[]).includes(value)

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/

/** Parses one public key line, or throws a PublicKeyError saying what is wrong with it. */
export function parseSshPublicKey(text: string): SshPublicKey {
  const trimmed = text.trim()
  if (/[\r\n]/.test(trimmed)) throw new PublicKeyError('it must be a single line')
  const [type, encoded] = trimmed.split(/[ \t]+/)
  if (!isKeyType(type)) {
    throw new PublicKeyError(`the key type must be one of ${SSH_KEY_TYPES.join(', ')}`)
  }
  if (encoded === undefined || !BASE64.test(encoded)) {
    throw new PublicKeyError('the key type must be followed by the base64 key blob')
  }
  const blob = Buffer.from(encoded, 'base64')
  // Node's decoder skips what it cannot read; the round trip catches bad lengths and padding.
  if (blob.toString('base64') !== encoded)
    throw new PublicKeyError('the key blob is not valid base64')
  const reader = new BlobReader(blob)
  const inner = reader.string('the key type').toString('latin1')
  if (inner !== type) {
    throw new PublicKeyError(`the line says ${type} but the key blob says ${JSON.stringify(inner)}`)
  }
  checkKeyFields(type, reader)
  return { type, blob, line: `${type} ${encoded}` }
}

/** `SHA256:` + unpadded base64 of the blob's SHA-256, as `ssh-keygen -l` prints it. */
export const sshFingerprint = (blob: Buffer): string =>
  `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`
