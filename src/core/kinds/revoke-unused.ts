import type { ObtainContext } from './kind.js'

/**
 * Best effort, at once: a credential this step could not use must not live out its lifetime.
 * If the revoke fails, the state saved for it stays, and post tries again; a credential that could
 * not be saved (`saved: false`) has this one revoke only, and its failure is a warning.
 */
export async function revokeUnused(
  what: string,
  revoke: () => Promise<unknown>,
  { log, clearSaved, explain }: Pick<ObtainContext, 'log' | 'clearSaved' | 'explain'>,
  saved = true
): Promise<void> {
  try {
    await revoke()
  } catch (error) {
    if (saved) {
      log.info(
        `Could not revoke ${what} yet (${explain(error)}); revoking when the job ends tries again.`
      )
    } else {
      log.warning(
        `Could not revoke ${what} (${explain(error)}). It cannot be saved for revoking when the job ends, so it stays valid until it expires.`
      )
    }
    return
  }
  log.info(`Revoked ${what}, which this step could not use.`)
  try {
    clearSaved()
  } catch {
    // The state file is what just failed: post finds the credential gone (404), which is information.
  }
}
