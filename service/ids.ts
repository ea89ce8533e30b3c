/**
 * Every identifier and secret the stand-in hands out. All randomness comes from node:crypto,
 * because these values end up in logs that tests scan for leaked secrets: a predictable
 * value could appear there by accident and hide a leak.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto'

const TUNNEL_USER_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'
const TUNNEL_USER_LENGTH = 5

/** 5 lowercase letters and digits, retried until `isTaken` says it is free (36^5 ≈ 60 million). */
export function newTunnelUser(isTaken: (candidate: string) => boolean): string {
  for (let attempt = 0; attempt < 1000; attempt++) {
    let candidate = ''
    for (let i = 0; i < TUNNEL_USER_LENGTH; i++) {
      candidate += TUNNEL_USER_ALPHABET[randomInt(TUNNEL_USER_ALPHABET.length)]
    }
    if (!isTaken(candidate)) return candidate
  }
  throw new Error('could not find a free tunnel user name')
}

export const newTokenValue = (): string => `tok_${randomBytes(24).toString('hex')}`
export const newClientSecret = (): string => `sec_${randomBytes(24).toString('hex')}`
// A hyphen, not an underscore: a key's client id is its tunnel user, which the front routes on as
// part of a DNS label (`<name>-<user>.localhost`), and a label cannot hold an underscore.
export const newClientId = (): string => `cid-${randomBytes(8).toString('hex')}`
export const newApiKey = (): string => `sk_${randomBytes(32).toString('hex')}`
export const newUuid = (): string => randomUUID()
