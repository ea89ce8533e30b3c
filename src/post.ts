import * as core from '@actions/core'
import { systemClock, type Clock } from './clock.js'
import { createService } from './create-service.js'
import { ActionError } from './errors.js'
import { explainFailure } from './failures.js'
import { parseBaseUrl, readPostSettings } from './inputs.js'
import { describeCredential, giveBackCredential } from './kinds/registry.js'
import { maskSecrets, runnerLog } from './publish.js'
import { loadCredential } from './state.js'

/**
 * The post step: the kind gives back what main obtained. Cleanup must not fail a job by accident,
 * so every failure is a warning unless the workflow asked for fail-on-revoke-error.
 */
export async function runPost(clock: Clock = systemClock): Promise<void> {
  maskSecrets([core.getInput('api-key'), core.getInput('tunnel-token')].filter(Boolean))
  const saved = loadCredential()
  if (!saved) {
    core.info('Nothing to revoke: the main step did not provision a credential.')
    return
  }
  let failOnRevokeError = false
  try {
    const settings = readPostSettings(name => core.getInput(name))
    failOnRevokeError = settings.failOnRevokeError
    await giveBackCredential(saved, {
      settings,
      // The API key goes to the base-url input only, never to an address read from saved state.
      service: () => createService(parseBaseUrl(core.getInput('base-url')), settings.http, clock),
      log: runnerLog,
      env: process.env
    })
  } catch (error) {
    const reason =
      error instanceof ActionError
        ? error.message
        : explainFailure(error, { baseUrl: core.getInput('base-url'), nowMs: clock.now() })
    const expiresAt = 'expiresAt' in saved ? saved.expiresAt : undefined
    const until = expiresAt ? ` It expires by itself at ${expiresAt}.` : ' Its expiry is unknown.'
    const message = `Could not revoke ${describeCredential(saved)}: ${reason}${until}`
    if (failOnRevokeError) core.setFailed(message)
    else core.warning(message)
  }
}
