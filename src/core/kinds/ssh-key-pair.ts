import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto'
import { fingerprintOf } from '../text/fingerprint.js'

/**
 * An ed25519 key pair in the three encodings the ssh-key credential needs. `privateKeyFile` is a
 * secret: it is written to a mode-0600 file and nowhere else.
 */
export interface SshKeyPair {
  /** `ssh-ed25519 <base64 key blob> <comment>`, as uploaded with keys-upload. */
  publicKeyLine: string
  /** An unencrypted `-----BEGIN OPENSSH PRIVATE KEY-----` file, as `ssh -i` reads it. */
  privateKeyFile: string
  /** `SHA256:` + unpadded base64 of the SHA-256 of the key blob, as `ssh-keygen -l` prints it. */
  fingerprint: string
}

const KEY_TYPE = 'ssh-ed25519'
const AUTH_MAGIC = 'openssh-key-v1\0'
// The "none" cipher's block size: the private section is padded to a multiple of it.
const NONE_CIPHER_BLOCK_SIZE = 8
// OpenSSH wraps the base64 body of its key files at 70 characters.
const PEM_LINE_LENGTH = 70
// A comment goes on the public key line and into the key file; a line break would split the line.
const UNSAFE_COMMENT = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u

/** A fresh key pair, made in memory by node:crypto: no ssh-keygen, no file until the caller writes one. */
export function generateSshKeyPair(comment: string): SshKeyPair {
  const { privateKey } = generateKeyPairSync('ed25519')
  const jwk = privateKey.export({ format: 'jwk' })
  return encodeSshKeyPair({
    seed: Buffer.from(jwk.d as string, 'base64url'),
    publicKey: Buffer.from(jwk.x as string, 'base64url'),
    comment,
    checkInt: randomBytes(4).readUInt32BE(0)
  })
}

/** The public half of an ed25519 seed; used to build a pair from a known seed (test vectors). */
export function ed25519PublicKeyOf(seed: Buffer): Buffer {
  // PKCS#8 wrapping of a bare ed25519 seed (RFC 8410): a fixed 16-byte prefix, then the 32 bytes.
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed])
  const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' })
  const jwk = createPublicKey(privateKey).export({
    format: 'jwk'
  })
  return Buffer.from(jwk.x as string, 'base64url')
}

export interface KeyMaterial {
  /** The 32-byte ed25519 private seed. */
  seed: Buffer
  /** The 32-byte ed25519 public key. */
  publicKey: Buffer
  comment: string
  /** Repeated twice in the key file; a reader that decrypts compares the two to detect a wrong passphrase. */
  checkInt: number
}

/** Encodes given key material; pure and deterministic, so the encodings are tested byte for byte. */
export function encodeSshKeyPair(material: KeyMaterial): SshKeyPair {
  const { seed, publicKey, comment, checkInt } = material
  if (seed.length !== 32 || publicKey.length !== 32) {
    throw new Error('an ed25519 seed and public key are 32 bytes each')
  }
  if (UNSAFE_COMMENT.test(comment)) {
    throw new Error('an SSH key comment must not hold line breaks or control characters')
  }
  const blob = publicKeyBlob(publicKey)
  return {
    publicKeyLine: `${KEY_TYPE} ${blob.toString('base64')}${comment ? ` ${comment}` : ''}`,
    privateKeyFile: privateKeyFile(blob, seed, publicKey, comment, checkInt),
    fingerprint: fingerprintOf(blob)
  }
}

/** RFC 8709: string "ssh-ed25519", string the 32 public bytes. */
function publicKeyBlob(publicKey: Buffer): Buffer {
  return Buffer.concat([sshString(KEY_TYPE), sshString(publicKey)])
}

/** OpenSSH's PROTOCOL.key format, with cipher and kdf "none": the file `ssh-keygen -N ''` writes. */
function privateKeyFile(
  blob: Buffer,
  seed: Buffer,
  publicKey: Buffer,
  comment: string,
  checkInt: number
): string {
  const check = Buffer.alloc(4)
  check.writeUInt32BE(checkInt >>> 0)
  const unpadded = Buffer.concat([
    check,
    check,
    sshString(KEY_TYPE),
    sshString(publicKey),
    // OpenSSH keeps ed25519's 64-byte private key: the seed followed by the public key.
    sshString(Buffer.concat([seed, publicKey])),
    sshString(comment)
  ])
  const padLength =
    (NONE_CIPHER_BLOCK_SIZE - (unpadded.length % NONE_CIPHER_BLOCK_SIZE)) % NONE_CIPHER_BLOCK_SIZE
  const padding = Buffer.from(Array.from({ length: padLength }, (_, index) => index + 1))
  const body = Buffer.concat([
    Buffer.from(AUTH_MAGIC, 'latin1'),
    sshString('none'),
    sshString('none'),
    sshString(''),
    uint32(1),
    sshString(blob),
    sshString(Buffer.concat([unpadded, padding]))
  ])
  const base64 = body.toString('base64')
  const lines: string[] = []
  for (let start = 0; start < base64.length; start += PEM_LINE_LENGTH) {
    lines.push(base64.slice(start, start + PEM_LINE_LENGTH))
  }
  return [
    '-----BEGIN OPENSSH PRIVATE KEY-----',
    ...lines,
    '-----END OPENSSH PRIVATE KEY-----',
    ''
  ].join('\n')
}

/** The SSH wire format's `string`: a 4-byte big-endian length, then the bytes. */
function sshString(value: string | Buffer): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value
  return Buffer.concat([uint32(bytes.length), bytes])
}

function uint32(value: number): Buffer {
  const bytes = Buffer.alloc(4)
  bytes.writeUInt32BE(value)
  return bytes
}
