import * as core from '@actions/core'
import { systemClock, type Clock } from '../core/clock.js'
import { hasExpired } from '../core/expiry.js'
import { ExplainedError } from '../core/errors.js'
import { explainFailure } from '../core/service/failures.js'
import { parseFailOnRevokeError, readPostKind, readPostSettings } from '../core/settings/inputs.js'
import type { SavedCredential } from '../core/kinds/kind.js'
import { describeCredential, giveBackCredential } from '../core/kinds/registry.js'
import { printable } from '../core/text/printable.js'
import { maskSecrets, runnerLog } from './publish.js'
import { createService } from './service-factory.js'
import { runnerTemp } from './runner-temp.js'
import { hasSavedCredential, loadCredential, loadTunnel } from './state.js'

const NOTHING_SAVED = 'Nothing to revoke: the main step left no credential behind.'

/**
 * The post step: the kind gives back what main obtained. Cleanup must not fail a job by accident,
 * so every failure is a warning unless the workflow asked for fail-on-revoke-error. Saved state
 * only names what to give back: which kind it is, where the key goes and whether to revoke come
 * from the inputs, as in main.
 */
export async function runPost(clock: Clock = systemClock): Promise<void> {
  maskSecrets([core.getInput('api-key'), core.getInput('tunnel-token')].filter(Boolean))
  // The tunnel first: it holds a connection with the credential, which revoking would cut anyway.
  if (loadTunnel() !== undefined) {
    const { closeTunnel } = await import('./tunnel-steps.js')
    await closeTunnel()
  }
  if (!hasSavedCredential()) {
    core.info(NOTHING_SAVED)
    return
  }
  const input = (name: string): string => core.getInput(name)
  let failOnRevokeError = false
  let baseUrl = printable(input('base-url'))
  let saved: SavedCredential | undefined
  try {
    failOnRevokeError = parseFailOnRevokeError(input)
    saved = loadCredential(readPostKind(input))
    if (!saved) {
      core.info(NOTHING_SAVED)
      return
    }
    const settings = readPostSettings(input)
    if (settings.baseUrl !== undefined) baseUrl = settings.baseUrl
    const stateBaseUrl = 'baseUrl' in saved ? saved.baseUrl : undefined
    await giveBackCredential(saved, {
      settings,
      service: () => {
        if (settings.baseUrl === undefined) {
          throw new Error(`credential ${settings.kind} sends no request`)
        }
        warnIfStateMoved(stateBaseUrl, settings.baseUrl)
        return createService(settings.baseUrl, settings.http, clock)
      },
      log: runnerLog,
      tempRoot: runnerTemp()
    })
  } catch (error) {
    const reason =
      error instanceof ExplainedError
        ? error.message
        : explainFailure(error, { baseUrl, nowMs: clock.now() })
    if (!saved) {
      // The credential input could not be read, so neither could what main saved for it.
      report(`Could not revoke what the main step saved: ${reason}`, failOnRevokeError)
      return
    }
    reportRevokeFailure(
      `Could not revoke ${describeCredential(saved)}: ${reason}`,
      saved,
      failOnRevokeError,
      clock
    )
  }
}

function warnIfStateMoved(stateBaseUrl: string | undefined, baseUrl: string): void {
  if (stateBaseUrl === undefined || stateBaseUrl === baseUrl) return
  core.warning(
    `The saved state names the credential service at ${printable(stateBaseUrl)}, but input base-url is ${baseUrl}. ` +
      'The API key goes only to the base-url input, so the revoke is sent there. Something other than this action may have written the state.'
  )
}

/**
 * A credential that should already have expired may be gone for that reason alone, so its
 * failure is information. Otherwise a warning, or the step's failure when the workflow asked.
 */
function reportRevokeFailure(
  message: string,
  saved: SavedCredential,
  failOnRevokeError: boolean,
  clock: Clock
): void {
  const expiresAt = 'expiresAt' in saved ? saved.expiresAt : undefined
  if (hasExpired(expiresAt, clock.now())) {
    core.info(`${message} It should already have expired at ${printable(expiresAt ?? '')}.`)
    return
  }
  report(
    `${message}${expiresAt ? ` It expires by itself at ${printable(expiresAt, 40)}.` : ' Its expiry is unknown.'}`,
    failOnRevokeError
  )
}

function report(message: string, failOnRevokeError: boolean): void {
  if (failOnRevokeError) core.setFailed(message)
  else core.warning(message)
}
