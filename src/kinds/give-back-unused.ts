import type { ObtainContext } from './kind.js'

/**
 * Best effort, at once: a credential this step could not use must not live out its lifetime.
 * If the revoke fails, the state saved for it stays, and post tries again.
 */
export async function giveBackUnused(
  what: string,
  revoke: () => Promise<unknown>,
  { log, clearSaved, explain }: Pick<ObtainContext, 'log' | 'clearSaved' | 'explain'>
): Promise<void> {
  try {
    await revoke()
  } catch (error) {
    log.info(`Could not revoke ${what} yet (${explain(error)}); the post step will try again.`)
    return
  }
  log.info(`Revoked ${what}, which this step could not use.`)
  try {
    clearSaved()
  } catch {
    // The state file is what just failed: post finds the credential gone (404), which is information.
  }
}
