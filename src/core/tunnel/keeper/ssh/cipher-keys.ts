/**
 * Turns the session keys of ssh2's JavaScript ciphers into KeyObjects after every key exchange.
 *
 * Without its native addon (left out of the bundle, so dist/ runs on any machine), ssh2 makes a
 * new AES-GCM cipher for every SSH packet, each time from the key as a Buffer. Node 24 finds out
 * that a Buffer is not a KeyObject by catching two exceptions, which costs more than encrypting
 * a 32 KiB packet: about a fifth of the keeper's CPU time in the tunnel benchmark, whose keeper
 * is CPU bound on a 2-core runner. With a KeyObject that check succeeds at once (Node 20 has no
 * such cost either way).
 *
 * This writes into ssh2's private fields, so it runs only on the ssh2 version it was checked
 * against (SSH2_CHECKED_VERSION). With any other version it does nothing: the keys stay Buffers,
 * the tunnel works as before and is only slower, until someone checks the fields again and moves
 * the version (the upgrade checklist in docs/performance.md; a test fails until then).
 */
import { createSecretKey, type KeyObject } from 'node:crypto'
// The bundle inlines this `version` (ssh2's protocol module reads the same file): the version of
// the ssh2 code that was bundled with this file.
import ssh2Package from 'ssh2/package.json' with { type: 'json' }

/** The ssh2 release whose private fields were read to write this file. */
export const SSH2_CHECKED_VERSION = '1.17.0'

/** ssh2's JavaScript ciphers: AES-GCM's key, the other ciphers' MAC key (one HMAC per packet). */
const KEY_FIELDS = ['_encKey', '_decipherKey', '_macKey'] as const

type KeyHolder = Partial<Record<(typeof KEY_FIELDS)[number], Buffer | KeyObject>>

interface ClientInternals {
  _protocol?: { _cipher?: KeyHolder; _decipher?: KeyHolder }
}

/**
 * Converts the current keys; returns how many it converted (0 when there is nothing to do, or
 * when `ssh2Version`, the bundled ssh2's by default, is not the one this was checked against).
 */
export function keysAsKeyObjects(
  client: object,
  ssh2Version: string = ssh2Package.version
): number {
  if (ssh2Version !== SSH2_CHECKED_VERSION) return 0
  const protocol = (client as ClientInternals)._protocol
  let converted = 0
  for (const holder of [protocol?._cipher, protocol?._decipher]) {
    if (holder === undefined) continue
    for (const field of KEY_FIELDS) {
      const key = holder[field]
      if (Buffer.isBuffer(key) && key.length > 0) {
        holder[field] = createSecretKey(key)
        converted += 1
      }
    }
  }
  return converted
}
