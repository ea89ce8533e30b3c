import * as core from '@actions/core'
import { systemClock, type Clock } from './clock.js'
import { hasExpired } from './credential.js'
import { ActionError } from './errors.js'
import { explainFailure } from './failures.js'
import { readPostSettings } from './inputs.js'
import { createService } from './main.js'
import { maskSecrets } from './publish.js'
import { loadCredential, loadTunnel } from './state.js'

/**
 * The post step: revoke what main provisioned. Cleanup must not fail a job by accident, so every
 * failure is a warning unless the workflow asked for fail-on-revoke-error.
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
    core.info('Nothing to revoke: the main step did not provision a credential.')
    return
  }
  const until = saved.expiresAt ? ` It expires by itself at ${saved.expiresAt}.` : ''
  if (saved.flavour === 'free') {
    core.info(`Nothing to revoke: free credentials cannot be revoked.${until}`)
    return
  }
  let failOnRevokeError = false
  try {
    const settings = readPostSettings(name => core.getInput(name))
    failOnRevokeError = settings.failOnRevokeError
    if (!settings.revoke) {
      core.info(`Not revoking tunnel user ${saved.tunnelUser}: input revoke is false.${until}`)
      return
    }
    if (hasExpired(saved.expiresAt, clock.now())) {
      core.info(
        `Not revoking tunnel user ${saved.tunnelUser}: it already expired at ${saved.expiresAt}.`
      )
      return
    }
    if (!settings.apiKey) {
      throw new ActionError(
        'input api-key is empty in the post step, so the revoke request cannot be authenticated.'
      )
    }
    const service = createService(saved.baseUrl, settings.http, clock)
    const outcome = await service.revokeCredential(settings.apiKey, saved.tunnelUser)
    core.info(
      outcome === 'revoked'
        ? `Revoked the tunnel token of user ${saved.tunnelUser}.`
        : `The tunnel token of user ${saved.tunnelUser} was already revoked or has expired (404); nothing left to do.`
    )
  } catch (error) {
    const reason =
      error instanceof ActionError
        ? error.message
        : explainFailure(error, { baseUrl: saved.baseUrl, nowMs: clock.now() })
    const message = `Could not revoke the tunnel token of user ${saved.tunnelUser}: ${reason}${until || ' Its expiry is unknown.'}`
    if (failOnRevokeError) core.setFailed(message)
    else core.warning(message)
  }
}
