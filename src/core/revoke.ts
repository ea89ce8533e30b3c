/**
 * What post does, in order: stop the tunnel, then revoke what main obtained, and return what
 * happened to each (outcome.ts) for the host to map. Cleanup must not fail a job by accident, so a
 * failure weighs as a warning unless the options ask for fail-on-revoke-error. Saved state only
 * names what to revoke: where the key goes and whether to revoke come from the options, as in
 * main, and which kind it is from the record, checked against them (revoke-kind.ts).
 */
import { SECRET_OPTION_NAMES } from './options/option-facts.js'
import { ExplainedError } from './errors.js'
import type { Host } from './host.js'
import type { SavedCredential } from './kinds/registry.js'
import { describeCredential, revokeSavedCredential } from './kinds/registry.js'
import type { CredentialOutcome, RevokeOutcome } from './outcome.js'
import { hasSavedCredential, loadCredential, recordedKind } from './saved-credential.js'
import { expiryNote, hasExpired } from './expiry.js'
import { chooseRevokeKind, type RevokeKind } from './revoke-kind.js'
import { createService } from './service/factory.js'
import { explainFailure } from './service/failures.js'
import { parseFailOnRevokeError } from './settings/common.js'
import { readPostSettings } from './assembly/read-post.js'
import { printable } from './text/printable.js'
import { loadTunnel } from './tunnel/saved/saved-tunnel.js'

const NOTHING_SAVED = 'Nothing to revoke: no credential was provisioned, or it was already revoked.'

/** The post step. Never throws for a failure it expects: the outcome says what happened. */
export async function revoke(host: Host): Promise<RevokeOutcome> {
  const { options } = host
  host.mask(SECRET_OPTION_NAMES.map(name => options.read(name)).filter(Boolean))
  // The tunnel first: it holds a connection with the credential, which revoking would cut anyway.
  const { tunnel, untidied, requests } = await stopRecordedTunnel(host)
  const { credential, kindMismatch } = await revokeRecordedCredential(host)
  return {
    tunnel,
    credential,
    ...(kindMismatch && { kindMismatch }),
    untidied,
    ...(requests && { requests })
  }
}

async function stopRecordedTunnel(
  host: Host
): Promise<Pick<RevokeOutcome, 'tunnel' | 'untidied' | 'requests'>> {
  if (host.state.load('tunnel') === '') return { tunnel: { status: 'none' }, untidied: [] }
  const loaded = loadTunnel(host.state, host.tempRoot)
  if (loaded === undefined) {
    host.log.warning(
      'The saved state records a tunnel process, but not one this tool could have started, so nothing was stopped. Something other than this tool may have written the state.'
    )
    return { tunnel: { status: 'not-found' }, untidied: [] }
  }
  const { stopSavedTunnel } = await import('./tunnel/on-demand.js')
  const stopped = await stopSavedTunnel(loaded, host)
  return {
    tunnel: stopped.outcome,
    untidied: stopped.untidied ? [stopped.untidied] : [],
    ...(stopped.requests && { requests: stopped.requests })
  }
}

async function revokeRecordedCredential(
  host: Host
): Promise<{ credential: CredentialOutcome; kindMismatch?: string }> {
  const { options, log, clock, state } = host
  if (!hasSavedCredential(state)) {
    log.info(NOTHING_SAVED)
    return { credential: { status: 'nothing' } }
  }
  let failOnRevokeError = false
  let baseUrl = printable(options.read('base-url'))
  let saved: SavedCredential | undefined
  let chosen: RevokeKind | undefined
  try {
    failOnRevokeError = parseFailOnRevokeError(options)
    chosen = chooseRevokeKind(
      options,
      recordedKind(state),
      kind => loadCredential(state, kind) !== undefined
    )
    saved = loadCredential(state, chosen.kind)
    if (!saved) {
      // Something was saved, but not a credential of that kind: state someone else wrote, or
      // different options than when it was provisioned. Never silent, since a credential may
      // be left valid.
      const message =
        `The saved state holds a credential that does not read as ${options.label('credential')} "${chosen.kind}", so nothing was revoked. ` +
        'If it was provisioned with other options, revoke with those; otherwise the state was written by something else.'
      return failed(message, 'warning', chosen)
    }
    const settings = readPostSettings(options, chosen.kind)
    if (settings.baseUrl !== undefined) baseUrl = settings.baseUrl
    const stateBaseUrl = 'baseUrl' in saved ? saved.baseUrl : undefined
    const revokedAs = await revokeSavedCredential(saved, {
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
    return { credential: { status: revokedAs }, ...withMismatch(chosen) }
  } catch (error) {
    const reason =
      error instanceof ExplainedError
        ? error.message
        : explainFailure(error, { baseUrl, nowMs: clock.now(), label: name => options.label(name) })
    const weight = failOnRevokeError ? 'fail-step' : 'warning'
    // The credential option could not be read, so neither could what main saved for it.
    if (!saved) return failed(`Could not revoke what was provisioned: ${reason}`, weight, chosen)
    const message = `Could not revoke ${describeCredential(saved)}: ${reason}`
    const expiresAt = 'expiresAt' in saved ? saved.expiresAt : undefined
    // A credential that should already have expired may be gone for that reason alone, so its
    // failure is information; the service, not this clock, decides, so the record stays.
    if (hasExpired(expiresAt, clock.now())) {
      const note = ` It should already have expired at ${printable(expiresAt ?? '')}.`
      return failed(`${message}${note}`, 'info', chosen)
    }
    return failed(
      `${message}${expiryNote({ expiresAt }) || ' Its expiry is unknown.'}`,
      weight,
      chosen
    )
  }
}

function failed(
  message: string,
  report: 'fail-step' | 'warning' | 'info',
  chosen: RevokeKind | undefined
): { credential: CredentialOutcome; kindMismatch?: string } {
  return { credential: { status: 'failed', message, report }, ...withMismatch(chosen) }
}

function withMismatch(chosen: RevokeKind | undefined): { kindMismatch?: string } {
  return chosen?.mismatch === undefined ? {} : { kindMismatch: chosen.mismatch }
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
