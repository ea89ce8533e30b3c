import { ExplainedError } from '../errors.js'
import type { CredentialService } from '../service/client.js'
import { readKeyId, sameFingerprint } from './uploaded-key.js'
import { API_KEY_OPTION } from '../options/option-facts.js'

/** Statuses of a record that can no longer log in; anything else is revoked to be sure. */
const DEAD_STATUSES = new Set(['revoked', 'expired', 'deleted'])

/**
 * Revokes every live record of this run's key that the service lists, but `keep`. An upload whose
 * answer was lost (a 500 with no body, a timeout) may have stored the key anyway, and its retry
 * stores it again: only the fingerprint, which this step computed, finds those records.
 * Resolves the ids revoked; throws when the list cannot be read or a record cannot be revoked.
 */
export async function revokeKeyRecords(
  client: CredentialService,
  apiKey: string,
  fingerprint: string,
  keep?: string
): Promise<string[]> {
  const records = liveRecordsOf(await client.listKeys(apiKey), fingerprint)
  const revoked: string[] = []
  let failure: unknown
  for (const id of records) {
    if (id === keep) continue
    try {
      await client.revokeKey(apiKey, id)
      revoked.push(id)
    } catch (error) {
      failure ??= error
    }
  }
  if (failure !== undefined) throw failure
  return revoked
}

function liveRecordsOf(raw: unknown, fingerprint: string): string[] {
  const keys =
    typeof raw === 'object' && raw !== null ? (raw as { keys?: unknown }).keys : undefined
  if (!Array.isArray(keys)) throw unusableList('it holds no keys list')
  const ids: string[] = []
  for (const entry of keys as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue
    const record = entry as Record<string, unknown>
    if (typeof record.fingerprint !== 'string' || !sameFingerprint(record.fingerprint, fingerprint))
      continue
    if (typeof record.status === 'string' && DEAD_STATUSES.has(record.status)) continue
    const id = readKeyId({ key_id: record.id })
    // A record of this key that cannot be named cannot be revoked: say so rather than skip it.
    if (id === undefined) throw unusableList('a record of this key has no usable id')
    ids.push(id)
  }
  return ids
}

function unusableList(why: string): ExplainedError {
  return new ExplainedError(`the service's user-keys-list answer is unusable: ${why}`)
}

/** What to tell the user when this step cannot make sure the key is gone; a clause, no full stop. */
export function revokeByHand(fingerprint: string, name: string | undefined): string {
  return (
    `a key with fingerprint ${fingerprint}${name ? ` and name "${name}"` : ''} may still be active: ` +
    'find it in the service dashboard or with GET user-keys-list, and revoke it (POST revoke-ssh-key ' +
    `with its id) using the same ${API_KEY_OPTION}`
  )
}
