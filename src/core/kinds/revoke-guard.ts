/**
 * Post's first questions for a saved credential, the same for every kind that can be revoked:
 * revoke it or keep it, and with what key.
 */
import { ExplainedError } from '../errors.js'
import type { PostSettings } from '../settings/types.js'
import { API_KEY_OPTION } from '../options/option-facts.js'

/**
 * True when post revokes: the workflow did not ask to keep the credential, or main refused it. A
 * credential main refused was never handed out, so it goes whatever the revoke option says.
 */
export function shouldRevoke(
  settings: { revoke: boolean },
  saved: { rejected?: boolean }
): boolean {
  return settings.revoke || saved.rejected === true
}

/**
 * True when post leaves a shared credential to the run: main recorded it as shared, and the
 * `share` option does not say off. Saved state alone never skips a revoke where the options are
 * main's own (the action: `share` reads off there unless the workflow shares); on a command line,
 * where revoke may run without `share`, an unset option leaves the record to decide.
 */
export function leftToRun(
  settings: Pick<PostSettings, 'share'>,
  saved: { shared?: boolean }
): boolean {
  return saved.shared === true && settings.share !== 'off'
}

/** A revoke request is authenticated with the API key: without one in post, none can be sent. */
export function requireRevokeApiKey(settings: Pick<PostSettings, 'apiKey' | 'optionLabel'>): void {
  if (!settings.apiKey) {
    throw new ExplainedError(
      `${settings.optionLabel(API_KEY_OPTION)} is empty when revoking, so the revoke request cannot be authenticated.`
    )
  }
}
