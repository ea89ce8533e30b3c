/**
 * Which tunnel server host keys the keeper trusts, and which key types it offers. Checked before
 * any authentication, so the token never reaches a key that is not trusted.
 */
import type { ServerHostKeyAlgorithm } from 'ssh2'
import { fingerprintOf, keyTypeOf } from '../../../text/fingerprint.js'
import type { HostKeyPin } from '../../protocol.js'

/**
 * ssh2's default host key algorithms, in its order. A server with several keys shows the one
 * whose algorithm comes first in this list among those it has.
 */
const HOST_KEY_ALGORITHMS: ServerHostKeyAlgorithm[] = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa'
]

/** The algorithms that show a key of this type (an RSA key signs with three). */
function algorithmsOf(keyType: string): string[] {
  return keyType === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [keyType]
}

/**
 * The host key algorithms to offer: those of pinned key types first, as OpenSSH does with the
 * types in known_hosts, then the rest, without those of the key types in `shown` (keys the
 * server already showed and that were not trusted). Undefined: ssh2's defaults.
 */
export function hostKeyAlgorithms(
  pins: HostKeyPin[],
  shown: ReadonlySet<string> = new Set()
): ServerHostKeyAlgorithm[] | undefined {
  const pinned = pins.flatMap(pin => (pin.keyType === undefined ? [] : algorithmsOf(pin.keyType)))
  if (pinned.length === 0 && shown.size === 0) return undefined
  const excluded = new Set([...shown].flatMap(algorithmsOf))
  const known = HOST_KEY_ALGORITHMS as string[]
  const order = [...pinned.filter(algorithm => known.includes(algorithm)), ...known]
  return [...new Set(order)].filter(
    algorithm => !excluded.has(algorithm)
  ) as ServerHostKeyAlgorithm[]
}

export type HostKeyVerdict =
  | { trusted: true; fingerprint: string }
  | { trusted: false; fingerprint: string; keyType: string; reason: string }

/**
 * Pinned keys, or else trust on first use: the first key the keeper ever sees is the one it
 * trusts for its whole life, even when the attempt that saw it failed later, so a second attempt
 * that reaches another server never sends it the token.
 */
export class HostKeyTrust {
  private firstSeen: string | undefined

  constructor(
    private readonly pins: HostKeyPin[],
    /** How the message names the option that lists the pins. */
    private readonly optionName = 'tunnel-host-key'
  ) {}

  get pinned(): boolean {
    return this.pins.length > 0
  }

  check(blob: Buffer): HostKeyVerdict {
    const fingerprint = fingerprintOf(blob)
    if (this.pinned) {
      if (this.pins.some(pin => pin.fingerprint === fingerprint))
        return { trusted: true, fingerprint }
      return {
        trusted: false,
        fingerprint,
        keyType: keyTypeOf(blob) ?? 'unknown',
        reason: `the tunnel server's host key is ${fingerprint}, which ${this.optionName} does not list`
      }
    }
    this.firstSeen ??= fingerprint
    if (fingerprint === this.firstSeen) return { trusted: true, fingerprint }
    return {
      trusted: false,
      fingerprint,
      keyType: keyTypeOf(blob) ?? 'unknown',
      reason: `the tunnel server's host key changed from ${this.firstSeen} to ${fingerprint}`
    }
  }
}
