import { ExplainedError } from '../errors.js'
import { isIsoTime } from '../text/iso-time.js'

/** The keys-upload answer, validated: every field is safe to write to the runner's files. */
export interface UploadedKey {
  keyId: string
  fingerprint: string
  /** Absent when the service says the key does not expire (null). */
  expiresAt?: string
}

const SAFE_ID = /^[A-Za-z0-9._:-]{1,200}$/
const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{1,100}={0,2}$/

/**
 * The key id alone, read before the rest is checked: once the service holds a key, the step must
 * be able to revoke it even if the rest of the answer is unusable.
 */
export function readKeyId(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined
  const keyId = (raw as Record<string, unknown>).key_id
  return typeof keyId === 'string' && SAFE_ID.test(keyId) ? keyId : undefined
}

/** All or nothing, as for tokens: throws an ExplainedError that names the bad field. */
export function parseUploadedKey(raw: unknown): UploadedKey {
  const keyId = readKeyId(raw)
  if (keyId === undefined) throw invalidUpload('key_id is missing or not a plain identifier')
  const answer = raw as Record<string, unknown>
  const fingerprint = answer.public_key_fingerprint
  if (typeof fingerprint !== 'string' || !FINGERPRINT.test(fingerprint)) {
    throw invalidUpload('public_key_fingerprint is missing or not of the form SHA256:<base64>')
  }
  const expiresAt = answer.expires_at
  if (expiresAt !== undefined && expiresAt !== null) {
    if (!isIsoTime(expiresAt)) {
      throw invalidUpload('expires_at is not an ISO 8601 time')
    }
  }
  return { keyId, fingerprint, ...(typeof expiresAt === 'string' && { expiresAt }) }
}

/**
 * True when the service's fingerprint is the one computed on the runner. Base64 padding is not
 * part of OpenSSH's form, but a service that keeps it names the same digest.
 */
export function sameFingerprint(fromService: string, computed: string): boolean {
  return fromService.replace(/=+$/, '') === computed.replace(/=+$/, '')
}

export function invalidUpload(what: string): ExplainedError {
  return new ExplainedError(
    `The credential service sent a key upload answer that failed validation: ${what}. Nothing was exported. ` +
      'Check that base-url points at the credential service; if it does, report this to the service operator.'
  )
}
