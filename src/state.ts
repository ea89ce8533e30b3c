import * as core from '@actions/core'
import type { SavedCredential } from './kinds/kind.js'

const POST_MARKER = 'isPost'
const CREDENTIAL = 'credential'

/** The runner gives the post step the state main saved; main sees none, which is how one bundle serves both. */
export function isPostStep(): boolean {
  return core.getState(POST_MARKER) === 'true'
}

/** Saved first thing in main, so that even a main that fails early leads to a post that does nothing. */
export function markMainStarted(): void {
  core.saveState(POST_MARKER, 'true')
}

/** What main hands to post. Nothing secret: post reads the API key from its input again. */
export function saveCredential(saved: SavedCredential): void {
  core.saveState(CREDENTIAL, JSON.stringify(saved))
}

export function loadCredential(): SavedCredential | undefined {
  const raw = core.getState(CREDENTIAL)
  if (!raw) return undefined
  try {
    return readSavedCredential(JSON.parse(raw))
  } catch {
    return undefined
  }
}

/** Checks saved state field by field; anything unexpected reads as "nothing saved". */
export function readSavedCredential(value: unknown): SavedCredential | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const saved = value as Record<string, unknown>
  const text = (field: string): string | undefined =>
    typeof saved[field] === 'string' && saved[field] !== '' ? (saved[field] as string) : undefined
  const expiresAt = text('expiresAt')
  const tunnelUser = text('tunnelUser')
  switch (saved.kind) {
    case 'cicd':
    case 'free':
      return tunnelUser
        ? { kind: saved.kind, tunnelUser, ...(expiresAt && { expiresAt }) }
        : undefined
    case 'existing':
      return tunnelUser ? { kind: 'existing', tunnelUser } : undefined
    case 'ssh-key': {
      const keyId = text('keyId')
      const fingerprint = text('fingerprint')
      const keyFolder = text('keyFolder')
      if (!keyId || !fingerprint) return undefined
      return {
        kind: 'ssh-key',
        keyId,
        fingerprint,
        ...(keyFolder && { keyFolder }),
        ...(expiresAt && { expiresAt })
      }
    }
    default:
      return undefined
  }
}
