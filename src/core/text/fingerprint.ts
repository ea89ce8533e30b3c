/**
 * What OpenSSH prints for an SSH public key blob: its type and its fingerprint. The keeper checks
 * the server's host key with these, the tunnel-host-key option is read with them, and the ssh-key
 * kind names its key by them, so all three agree with `ssh-keygen -l` to the character.
 */
import { createHash } from 'node:crypto'

/** `SHA256:` and the base64 of the blob's SHA-256 without its `=` padding, as OpenSSH prints it. */
export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`
}

/** The key type an SSH public key blob starts with (a length-prefixed string). */
export function keyTypeOf(blob: Buffer): string | undefined {
  if (blob.length < 4) return undefined
  const length = blob.readUInt32BE(0)
  return length > 0 && 4 + length <= blob.length
    ? blob.subarray(4, 4 + length).toString('latin1')
    : undefined
}
