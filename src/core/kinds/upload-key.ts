import { ExplainedError } from '../errors.js'
import { AttemptsExhausted, RetryAfterTooLong } from '../service/retry.js'
import { ServiceError, type CredentialService } from '../service/client.js'
import type { SshKeySettings } from './ssh-key-settings.js'
import type { ObtainContext } from './kind.js'
import { revokeByHand, revokeKeyRecords } from './key-records.js'
import type { SshKeyPair } from './ssh-key-pair.js'
import { invalidUpload, readKeyId } from './uploaded-key.js'

/** The shortest life keys-upload offers in whole days; post revokes the key long before. */
export const KEY_LIFETIME_DAYS = 1

export interface SettledUpload {
  raw: unknown
  keyId: string
  /** Other records of the key may still be live (they could not be looked up): post looks again. */
  mayHaveCopies: boolean
}

/**
 * Uploads the public key, then makes sure the service holds no record of it but the one answered.
 * An attempt whose answer was lost (a 500 with no body, a timeout) may have stored the key, and
 * the retry stores it again, so after a retry, a failed upload or an answer without a usable
 * key_id, every other live record of the key's fingerprint is revoked. Throws when the upload
 * failed, after that clean-up.
 */
export async function uploadKeySettled(
  client: CredentialService,
  settings: SshKeySettings,
  pair: SshKeyPair,
  name: string,
  context: Pick<ObtainContext, 'log' | 'explain' | 'clearSaved'>
): Promise<SettledUpload> {
  let retried = false
  let raw: unknown
  const settle = (keep?: string) =>
    settleRecords(client, settings.apiKey, pair.fingerprint, name, keep, context)
  try {
    raw = await client.uploadKey({
      apiKey: settings.apiKey,
      publicKeyLine: pair.publicKeyLine,
      name,
      expiresInDays: KEY_LIFETIME_DAYS,
      clientId: settings.clientId,
      onRetry: () => (retried = true)
    })
  } catch (error) {
    if ((!retried && refusedOutright(error)) || (await settle())) clearSavedQuietly(context)
    throw error
  }
  const keyId = readKeyId(raw)
  if (keyId === undefined) {
    const settled = await settle()
    if (settled) clearSavedQuietly(context)
    throw invalidUpload(
      'key_id is missing or not a plain identifier, so the key cannot be revoked by its id; ' +
        (settled
          ? 'every record of the key the service lists was revoked instead'
          : revokeByHand(pair.fingerprint, name))
    )
  }
  return { raw, keyId, mayHaveCopies: retried && !(await settle(keyId)) }
}

/** True when the service answered the only attempt with a 4xx that stores nothing. */
function refusedOutright(error: unknown): boolean {
  const cause =
    error instanceof AttemptsExhausted || error instanceof RetryAfterTooLong ? error.cause : error
  return (
    cause instanceof ServiceError &&
    cause.kind === 'http' &&
    cause.status !== undefined &&
    cause.status >= 400 &&
    cause.status < 500 &&
    cause.status !== 408
  )
}

/** Revokes the key's other live records; false, with a warning that says what to do, on failure. */
async function settleRecords(
  client: CredentialService,
  apiKey: string,
  fingerprint: string,
  name: string,
  keep: string | undefined,
  { log, explain }: Pick<ObtainContext, 'log' | 'explain'>
): Promise<boolean> {
  try {
    const revoked = await revokeKeyRecords(client, apiKey, fingerprint, keep)
    if (revoked.length > 0) {
      log.info(
        `Revoked ${revoked.length} ${keep ? 'other ' : ''}record${revoked.length === 1 ? '' : 's'} ` +
          `of the key ${fingerprint} that an upload whose answer was lost had stored (${revoked.join(', ')}).`
      )
    }
    return true
  } catch (error) {
    log.warning(
      `Could not look up or revoke the records of the uploaded key (${error instanceof ExplainedError ? error.message : explain(error)}). ` +
        `Until revoking when the job ends has looked again, ${revokeByHand(fingerprint, name)}.`
    )
    return false
  }
}

function clearSavedQuietly({ clearSaved }: Pick<ObtainContext, 'clearSaved'>): void {
  try {
    clearSaved()
  } catch {
    // The state file is what failed: post then finds no live record by fingerprint, which is fine.
  }
}
