import * as core from '@actions/core'
import { systemClock, type Clock } from './clock.js'
import { hasExpired } from './credential.js'
import { ActionError } from './errors.js'
import { explainFailure } from './failures.js'
import { parseFailOnRevokeError, readPostSettings, type PostSettings } from './inputs.js'
import { printable } from './printable.js'
import { maskSecrets } from './publish.js'
import { createService } from './service-factory.js'
import { loadCredential, loadTunnel, type SavedCredential } from './state.js'

/**
 * The post step: revoke what main provisioned. Cleanup must not fail a job by accident, so every
 * failure is a warning unless the workflow asked for fail-on-revoke-error. Saved state only names
 * the tunnel user: where the key goes and whether to revoke come from the inputs, as in main.
 * The user is printed only through printable: state is text anyone before this step could write.
 */
export async function runPost(clock: Clock = systemClock): Promise<void> {
  maskSecrets([core.getInput('api-key')].filter(Boolean))
  // The tunnel first: it holds a connection with the token, which revoking would cut anyway.
  if (loadTunnel() !== undefined) {
    const { closeTunnel } = await import('./tunnel/steps.js')
    await closeTunnel()
  }
  const saved = loadCredential()
  if (!saved) {
    core.info('Nothing to revoke: the main step left no credential behind.')
    return
  }
  const input = (name: string): string => core.getInput(name)
  let failOnRevokeError = false
  let baseUrl = printable(input('base-url'))
  try {
    failOnRevokeError = parseFailOnRevokeError(input)
    const settings = readPostSettings(input)
    baseUrl = settings.baseUrl
    if (!shouldRevoke(saved, settings)) return
    warnIfStateMoved(saved, settings.baseUrl)
    const service = createService(settings.baseUrl, settings.http, clock)
    const outcome = await service.revokeCredential(settings.apiKey, saved.tunnelUser)
    core.info(
      outcome === 'revoked'
        ? `Revoked the tunnel token of user ${printable(saved.tunnelUser)}.`
        : `The tunnel token of user ${printable(saved.tunnelUser)} was already revoked or has expired (404); nothing left to do.`
    )
  } catch (error) {
    const reason =
      error instanceof ActionError
        ? error.message
        : explainFailure(error, { baseUrl, nowMs: clock.now() })
    reportRevokeFailure(
      `Could not revoke the tunnel token of user ${printable(saved.tunnelUser)}: ${reason}`,
      saved,
      failOnRevokeError,
      clock
    )
  }
}

/** Says why not, when nothing should be sent. The service, not the runner's clock, decides expiry. */
function shouldRevoke(saved: SavedCredential, settings: PostSettings): boolean {
  if (settings.flavour === 'free') {
    core.info(`Nothing to revoke: free credentials cannot be revoked.${expiryNote(saved)}`)
    return false
  }
  // A credential main refused was never handed out: it goes, whatever the revoke input says.
  if (!settings.revoke && !saved.rejected) {
    core.info(
      `Not revoking tunnel user ${printable(saved.tunnelUser)}: input revoke is false.${expiryNote(saved)}`
    )
    return false
  }
  if (!settings.apiKey) {
    throw new ActionError(
      'input api-key is empty in the post step, so the revoke request cannot be authenticated.'
    )
  }
  return true
}

function warnIfStateMoved(saved: SavedCredential, baseUrl: string): void {
  if (saved.baseUrl === undefined || saved.baseUrl === baseUrl) return
  core.warning(
    `The saved state names the credential service at ${printable(saved.baseUrl)}, but input base-url is ${baseUrl}. ` +
      'The API key goes only to the base-url input, so the revoke is sent there. Something other than this action may have written the state.'
  )
}

/**
 * A token that should already have expired may be gone for that reason alone, so its failure is
 * information. Otherwise a warning, or the step's failure when the workflow asked for it.
 */
function reportRevokeFailure(
  message: string,
  saved: SavedCredential,
  failOnRevokeError: boolean,
  clock: Clock
): void {
  if (hasExpired(saved.expiresAt, clock.now())) {
    core.info(`${message} It should already have expired at ${printable(saved.expiresAt ?? '')}.`)
    return
  }
  const full = `${message}${expiryNote(saved) || ' Its expiry is unknown.'}`
  if (failOnRevokeError) core.setFailed(full)
  else core.warning(full)
}

function expiryNote(saved: SavedCredential): string {
  return saved.expiresAt ? ` It expires by itself at ${printable(saved.expiresAt, 40)}.` : ''
}
