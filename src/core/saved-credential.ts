/**
 * What main saves for post about its credential, through the host's saved state. Nothing secret:
 * post reads the API key from its own options again. State can be written by others (on GitHub,
 * an earlier step's save-state command or STATE_ variables), so post trusts it only to name what
 * to revoke: never where to send the key, never which kind of credential it is, never to skip a
 * revoke.
 */
import type { SavedState } from './host.js'
import type { SavedCredential } from './kinds/kind.js'
import { isCleanIdentifier } from './service/credential.js'
import type { KindName } from './settings/inputs.js'

const CREDENTIAL = 'credential'

export function saveCredential(state: SavedState, saved: SavedCredential): void {
  state.save(CREDENTIAL, JSON.stringify(saved))
}

/** Main revoked what it saved: nothing is left for post. */
export function clearCredential(state: SavedState): void {
  state.save(CREDENTIAL, '')
}

/** True when main saved a credential (and did not clear it), whatever its shape. */
export function hasSavedCredential(state: SavedState): boolean {
  return state.load(CREDENTIAL) !== ''
}

/** The saved credential, read as the kind post's own options name. */
export function loadCredential(state: SavedState, kind: KindName): SavedCredential | undefined {
  const raw = state.load(CREDENTIAL)
  if (!raw) return undefined
  try {
    return readSavedCredential(kind, JSON.parse(raw))
  } catch {
    return undefined
  }
}

/**
 * Reads saved state field by field for `kind`; the kind written in the state is not trusted.
 * Anything missing or malformed reads as "nothing saved".
 */
export function readSavedCredential(kind: KindName, value: unknown): SavedCredential | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const saved = value as Record<string, unknown>
  const text = (field: string): string | undefined =>
    typeof saved[field] === 'string' && saved[field] !== '' ? (saved[field] as string) : undefined
  const identifier = (field: string): string | undefined =>
    isCleanIdentifier(saved[field]) ? (saved[field] as string) : undefined
  const common = {
    ...(text('baseUrl') && { baseUrl: text('baseUrl') }),
    ...(text('expiresAt') && { expiresAt: text('expiresAt') }),
    ...(saved.rejected === true && { rejected: true })
  }
  const tunnelUser = identifier('tunnelUser')
  switch (kind) {
    case 'cicd':
    case 'free':
      return tunnelUser ? { kind, tunnelUser, ...common } : undefined
    case 'existing':
      return tunnelUser ? { kind, tunnelUser } : undefined
    case 'ssh-key': {
      const keyId = identifier('keyId')
      const fingerprint = identifier('fingerprint')
      const keyName = identifier('keyName')
      const keyFolder = text('keyFolder')
      const keyFolderId = text('keyFolderId')
      // Without a key id, the fingerprint alone finds the key's records (an upload that got no answer).
      if (!fingerprint) return undefined
      return {
        kind,
        fingerprint,
        ...(keyId && { keyId }),
        ...(keyName && { keyName }),
        ...(saved.mayHaveCopies === true && { mayHaveCopies: true }),
        ...(keyFolder && { keyFolder }),
        ...(keyFolderId && { keyFolderId }),
        ...common
      }
    }
  }
}
