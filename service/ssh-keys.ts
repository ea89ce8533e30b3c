/**
 * The SSH public keys uploaded so far, and how they read in `user-keys-list`. As for tokens,
 * status is computed when read, so a key turns `expired` on time with no timer running.
 */
import type { SshPublicKey } from './ssh-public-key.js'
import { isoTime } from './tokens.js'

export type SshKeyStatus = 'active' | 'revoked' | 'expired'

export interface SshKeyRecord {
  id: string
  /** The account that uploaded it: only that account lists and revokes it. */
  owner: string
  key: SshPublicKey
  fingerprint: string
  name: string
  serverType: string
  /** The tunnel user this key logs in as; null: the key cannot log in to the tunnel stand-in. */
  clientId: string | null
  createdAt: number
  /** null: the key does not expire. */
  expiresAt: number | null
  revokedAt: number | null
}

/** An entry of `user-keys-list`: the spec's fields plus `client_id`. */
export interface SshKeyView {
  id: string
  fingerprint: string
  name: string
  server_type: string
  status: SshKeyStatus
  created_at: string
  expires_at: string | null
  client_id: string | null
}

export function sshKeyStatus(record: SshKeyRecord, now: number): SshKeyStatus {
  if (record.revokedAt !== null) return 'revoked'
  if (record.expiresAt !== null && now >= record.expiresAt) return 'expired'
  return 'active'
}

export const toSshKeyView = (record: SshKeyRecord, now: number): SshKeyView => ({
  id: record.id,
  fingerprint: record.fingerprint,
  name: record.name,
  server_type: record.serverType,
  status: sshKeyStatus(record, now),
  created_at: isoTime(record.createdAt),
  expires_at: record.expiresAt === null ? null : isoTime(record.expiresAt),
  client_id: record.clientId
})

export class SshKeyStore {
  private readonly records = new Map<string, SshKeyRecord>()

  add(record: SshKeyRecord): void {
    this.records.set(record.id, record)
  }

  find(id: string): SshKeyRecord | undefined {
    return this.records.get(id)
  }

  /** Every key uploaded for `clientId` with exactly this blob, whatever its status. */
  forLogin(clientId: string, blob: Buffer): SshKeyRecord[] {
    return [...this.records.values()].filter(
      record => record.clientId === clientId && record.key.blob.equals(blob)
    )
  }

  /** Moves the expiry to `now`, so tests see an expired key without waiting. False if unknown. */
  expire(id: string, now: number): boolean {
    const record = this.records.get(id)
    if (record === undefined) return false
    record.expiresAt = now
    return true
  }

  /** The owner's keys, oldest first. */
  listFor(owner: string, now: number): SshKeyView[] {
    return [...this.records.values()]
      .filter(record => record.owner === owner)
      .map(record => toSshKeyView(record, now))
  }

  /** Every key, oldest first: the admin view. */
  list(now: number): SshKeyView[] {
    return [...this.records.values()].map(record => toSshKeyView(record, now))
  }
}
