/**
 * What main saves for post about its credential, through the host's saved state. Nothing secret:
 * post reads the API key from its own options again. State can be written by others (on GitHub,
 * an earlier step's save-state command or STATE_ variables), so post trusts it only to name what
 * to revoke: never where to send the key, never which kind of credential it is, never to skip a
 * revoke.
 */
import type { SavedState } from './host.js'
import type { SavedRecord } from './kinds/kind.js'
import type { SavedCredential } from './kinds/registry.js'
import { KIND_NAMES, readSavedCredential } from './kinds/registry.js'
import type { KindName } from './settings/types.js'

const CREDENTIAL = 'credential'

export function saveCredential(state: SavedState, saved: SavedRecord): void {
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

/** The kind the record says it is, when it names one of the kinds; undefined otherwise. */
export function recordedKind(state: SavedState): KindName | undefined {
  try {
    const { kind } = JSON.parse(state.load(CREDENTIAL)) as { kind?: unknown }
    return (KIND_NAMES as readonly unknown[]).includes(kind) ? (kind as KindName) : undefined
  } catch {
    return undefined
  }
}
