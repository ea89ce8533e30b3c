/**
 * Turns the session keys of ssh2's JavaScript ciphers into KeyObjects after every key exchange.
 *
 * Without its native addon (left out of the bundle, so dist/ runs on any machine), ssh2 makes a
 * new AES-GCM cipher for every SSH packet, each time from the key as a Buffer. Node 24 finds out
 * that a Buffer is not a KeyObject by catching two exceptions, which costs more than encrypting
 * a 32 KiB packet: about a fifth of the keeper's CPU time in the tunnel benchmark, whose keeper
 * is CPU bound on a 2-core runner. With a KeyObject that check succeeds at once (Node 20 has no
 * such cost either way). ssh2 1.17.0 (pinned) keeps the keys in the fields named below; if a
 * later version renames them nothing breaks, the keys simply stay Buffers (a test says so).
 */
import { createSecretKey, type KeyObject } from 'node:crypto'

/** ssh2's JavaScript ciphers: AES-GCM's key, the other ciphers' MAC key (one HMAC per packet). */
const KEY_FIELDS = ['_encKey', '_decipherKey', '_macKey'] as const

type KeyHolder = Partial<Record<(typeof KEY_FIELDS)[number], Buffer | KeyObject>>

interface ClientInternals {
  _protocol?: { _cipher?: KeyHolder; _decipher?: KeyHolder }
}

/** Converts the current keys; returns how many it converted (0 when there is nothing to do). */
export function keysAsKeyObjects(client: object): number {
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
