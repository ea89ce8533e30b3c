import { isCleanIdentifier } from '../text/validators.js'
import { readSavedIssued, type SavedIssued } from './saved-issued.js'

/** What the ssh-key kind saves for post: how to find the key's records and its private half. */
export interface SavedSshKey extends SavedIssued {
  kind: 'ssh-key'
  /** Absent while the upload is under way or when its answer was lost: post then goes by fingerprint. */
  keyId?: string
  /** Computed on the runner: it finds every record of the key, whatever the service answered. */
  fingerprint: string
  /** The name the key was uploaded under, for the message that asks to revoke it by hand. */
  keyName?: string
  /** A retried upload may have left other records of the key: post looks them up by fingerprint. */
  mayHaveCopies?: boolean
  /** The folder that holds the private key file; absent until it is made. */
  keyFolder?: string
  /** That folder's device and inode, so post deletes in it only while it is still the same one. */
  keyFolderId?: string
}

/** Read field by field; without a fingerprint nothing can be found, so nothing was saved. */
export function readSavedSshKey(saved: Record<string, unknown>): SavedSshKey | undefined {
  const text = (field: string): string | undefined =>
    typeof saved[field] === 'string' && saved[field] !== '' ? (saved[field] as string) : undefined
  const identifier = (field: string): string | undefined =>
    isCleanIdentifier(saved[field]) ? (saved[field] as string) : undefined
  const keyId = identifier('keyId')
  const fingerprint = identifier('fingerprint')
  const keyName = identifier('keyName')
  const keyFolder = text('keyFolder')
  const keyFolderId = text('keyFolderId')
  // Without a key id, the fingerprint alone finds the key's records (an upload that got no answer).
  if (!fingerprint) return undefined
  return {
    kind: 'ssh-key',
    fingerprint,
    ...(keyId && { keyId }),
    ...(keyName && { keyName }),
    ...(saved.mayHaveCopies === true && { mayHaveCopies: true }),
    ...(keyFolder && { keyFolder }),
    ...(keyFolderId && { keyFolderId }),
    ...readSavedIssued(saved)
  }
}
