/**
 * What post does, in order: stop the tunnel, then revoke what main obtained. Cleanup must not
 * fail a job by accident, so every failure is a warning unless the options ask for
 * fail-on-revoke-error. Saved state only names what to revoke: which kind it is, where the key
 * goes and whether to revoke come from the options, as in main.
 */
import type { Clock } from './clock.js'
import { ExplainedError } from './errors.js'
import type { Host } from './host.js'
import type { SavedCredential } from './kinds/kind.js'
import { describeCredential, revokeSavedCredential } from './kinds/registry.js'
import { hasSavedCredential, loadCredential } from './saved-credential.js'
import { expiryNote, hasExpired } from './expiry.js'
import { createService } from './service/factory.js'
import { explainFailure } from './service/failures.js'
import { parseFailOnRevokeError } from './settings/common.js'
import { readPostKind, readPostSettings } from './settings/read-post.js'
import { printable } from './text/printable.js'
import { loadTunnel } from './tunnel/saved-tunnel.js'

const NOTHING_SAVED = 'Nothing to revoke: no credential was provisioned, or it was already revoked.'

/** The post step. Never throws for a failure it expects: it warns, or fails when asked to. */
export async function revoke(host: Host): Promise<void> {
  const { options, log, clock, state } = host
  host.mask([options.read('api-key'), options.read('tunnel-token')].filter(Boolean))
  // The tunnel first: it holds a connection with the credential, which revoking would cut anyway.
  if (loadTunnel(state, host.tempRoot) !== undefined) {
    const { stopSavedTunnel } = await import('./tunnel/on-demand.js')
    await stopSavedTunnel(host)
  }
  if (!hasSavedCredential(state)) {
    log.info(NOTHING_SAVED)
    return
  }
  let failOnRevokeError = false
  let baseUrl = printable(options.read('base-url'))
  let saved: SavedCredential | undefined
  try {
    failOnRevokeError = parseFailOnRevokeError(options)
    const kind = readPostKind(options)
    saved = loadCredential(state, kind)
    if (!saved) {
      // Something was saved, but not a credential of the kind the options name: different
      // options than when it was provisioned, or state someone else wrote. Never silent, since
      // a credential may be left valid.
      log.warning(
        `The saved state holds a credential that does not read as ${options.label('credential')} "${kind}", so nothing was revoked. ` +
          'If it was provisioned with other options, revoke with those; otherwise the state was written by something else.'
      )
      return
    }
    const settings = readPostSettings(options)
    if (settings.baseUrl !== undefined) baseUrl = settings.baseUrl
    const stateBaseUrl = 'baseUrl' in saved ? saved.baseUrl : undefined
    await revokeSavedCredential(saved, {
      settings,
      service: () => {
        if (settings.baseUrl === undefined) {
          throw new Error(`credential ${settings.kind} sends no request`)
        }
        warnIfStateMoved(host, stateBaseUrl, settings.baseUrl)
        return createService(settings.baseUrl, settings.http, clock, log)
      },
      log,
      tempRoot: host.tempRoot,
      tempRootName: host.tempRootName
    })
  } catch (error) {
    const reason =
      error instanceof ExplainedError
        ? error.message
        : explainFailure(error, { baseUrl, nowMs: clock.now() })
    const report = (message: string) => reportOrFail(host, message, failOnRevokeError)
    if (!saved) {
      // The credential option could not be read, so neither could what main saved for it.
      report(`Could not revoke what was provisioned: ${reason}`)
      return
    }
    reportRevokeFailure(`Could not revoke ${describeCredential(saved)}: ${reason}`, saved, {
      log,
      clock,
      report
    })
  }
}

function warnIfStateMoved(
  { log, options }: Host,
  stateBaseUrl: string | undefined,
  baseUrl: string
): void {
  if (stateBaseUrl === undefined || stateBaseUrl === baseUrl) return
  log.warning(
    `The saved state names the credential service at ${printable(stateBaseUrl)}, but ${options.label('base-url')} is ${baseUrl}. ` +
      `The API key goes only to ${options.label('base-url')}, so the revoke is sent there. Something other than this tool may have written the state.`
  )
}

/**
 * A credential that should already have expired may be gone for that reason alone, so its
 * failure is information. Otherwise a warning, or the step's failure when the options ask.
 */
function reportRevokeFailure(
  message: string,
  saved: SavedCredential,
  { log, clock, report }: { log: Host['log']; clock: Clock; report: (message: string) => void }
): void {
  const expiresAt = 'expiresAt' in saved ? saved.expiresAt : undefined
  if (hasExpired(expiresAt, clock.now())) {
    log.info(`${message} It should already have expired at ${printable(expiresAt ?? '')}.`)
    return
  }
  report(`${message}${expiryNote({ expiresAt }) || ' Its expiry is unknown.'}`)
}

function reportOrFail(host: Host, message: string, failOnRevokeError: boolean): void {
  if (failOnRevokeError) host.fail(message)
  else host.log.warning(message)
}
