import type { RunIdentity } from '../host.js'

/** The longest key name this action sends; the issue fixes it at 100 characters. */
export const MAX_KEY_NAME_LENGTH = 100

/**
 * The uploaded key's name, `ci-<repository>-<run id>-<run attempt>`, so that a key found in
 * user-keys-list leads back to the run that made it. The repository's `/` becomes `-`; so does
 * anything else outside letters, digits, `.`, `_` and `-`, because the name is also the key's
 * comment, on the same line as the key.
 */
export function keyNameFor(run: RunIdentity): string {
  const repository = (run.repository || 'local').replace(/[^A-Za-z0-9._-]/g, '-')
  const runId = safePart(run.runId, '0')
  const runAttempt = safePart(run.runAttempt, '1')
  return `ci-${repository}-${runId}-${runAttempt}`.slice(0, MAX_KEY_NAME_LENGTH)
}

function safePart(value: string | undefined, fallback: string): string {
  const trimmed = (value ?? '').trim()
  return /^[0-9]+$/.test(trimmed) ? trimmed : fallback
}
