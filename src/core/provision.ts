/**
 * What main does, in order: mask, read the options, start the tunnel process with `expose`, obtain
 * the credential, and hand it over (variables, outputs, summary, the tunnel), all or nothing.
 * With `share` (src/core/share/), the credential is provisioned and sealed for the run (`create`),
 * or opened from the setup job's output instead of provisioned (`use`), or revoked for the run
 * (`revoke`, which hands nothing over).
 */
import { SECRET_OPTION_NAMES } from './options/option-facts.js'
import { ExplainedError } from './errors.js'
import type { Host } from './host.js'
import { obtainCredential } from './kinds/registry.js'
import type { ProvisionOutcome } from './outcome.js'
import { clearCredential, saveCredential } from './saved-credential.js'
import { createService } from './service/factory.js'
import { explainFailure } from './service/failures.js'
import type { Sharing } from './service/rate-limit-advice.js'
import { readMainSettings } from './assembly/read-main.js'
import { readKindChoice } from './assembly/choice.js'
import { checkedOptions } from './settings/input-text.js'
import { readSharePlan } from './share/share-plan.js'
import { openSharedCredential } from './share/open-shared.js'
import { revokeSharedCredential } from './share/revoke-shared.js'
import { checkUsable, useSharedCredential } from './share/use-shared.js'
import type { ObtainContext } from './kinds/kind.js'
import { recordingMasks, unmaskedSecretOutputs } from './secret-outputs.js'
import { withoutExposeWarning } from './settings/without-expose.js'
import { withPrintableSummary, writesFor } from './step-writes.js'
import { describeUnexpected } from './text/describe-error.js'
import { printable } from './text/printable.js'
import { checkUrlsBeforeRequest } from './tunnel/main/urls.js'

/** The main step. Never throws for a failure it expects: the outcome says what happened. */
export async function provision(givenHost: Host): Promise<ProvisionOutcome> {
  // What was masked, so that the hand-over can tell a secret output that was missed.
  const { host, masked } = recordingMasks(givenHost)
  const { options, log, clock, state } = host
  // Before anything can print, so not even an error message can show a key or token.
  host.mask(SECRET_OPTION_NAMES.map(name => options.read(name)).filter(Boolean))
  let baseUrl = printable(options.read('base-url'))
  let project: string | undefined
  // A 429's advice to share the credential is moot when this step is the one that shares it.
  let sharing: Sharing = givenHost.shareScope === undefined ? 'not-here' : 'possible'
  try {
    const checked = checkedOptions(options)
    const share = readSharePlan(checked, readKindChoice(checked), host.shareScope)
    if (share.mode === 'create') sharing = 'this-step'
    if (share.mode === 'off' && share.notice !== undefined) log.notice(share.notice)
    if ('warning' in share && share.warning !== undefined) log.warning(share.warning)
    if (share.mode === 'revoke') {
      await revokeSharedCredential(share, () => readMainSettings(options), host)
      return { status: 'shared-revoked' }
    }
    const settings = readMainSettings(options)
    // Opened and masked before any line: the token is never in the clear in this job's log.
    const opened = share.mode === 'use' ? openSharedCredential(share, settings, host) : undefined
    if (opened) checkUsable(opened, options, clock.now())
    if (!settings.tunnel) {
      const ignored = withoutExposeWarning(options)
      if (ignored !== undefined) log.warning(ignored)
    }
    if ('baseUrl' in settings) baseUrl = settings.baseUrl
    // A 404's explanation names the project, for the kinds that send one.
    if ('project' in settings) project = settings.project
    checkUrlsBeforeRequest(settings)
    // Loaded only with `expose`, so a step without it loads no tunnel code. Its process starts
    // now, so that its start overlaps the request for the credential (see launchKeeper).
    const tunnel = settings.tunnel
      ? (await import('./tunnel/on-demand.js')).prepareTunnel(settings.tunnel, host)
      : undefined
    try {
      const context: ObtainContext = {
        service: () => {
          // Only kinds that read base-url call the service; `existing` never does.
          if (!('baseUrl' in settings))
            throw new Error(`credential ${settings.kind} sends no request`)
          return createService(settings.baseUrl, settings.http, clock, log)
        },
        log,
        mask: secrets => host.mask(secrets),
        save: saved => saveCredential(state, saved),
        clearSaved: () => clearCredential(state),
        publish: async obtained => {
          // All or nothing: later steps get no variable, output or summary unless the whole
          // hand-over succeeds. Secrets were masked as they arrived, and state for post is saved.
          const writes = writesFor(obtained, settings)
          // Part of the hand-over: a tunnel that fails revokes the credential at once, as any
          // failure after the credential was issued does.
          if (tunnel) await tunnel.open(obtained.login, settings, writes)
          // Once the tunnel has added its own (SVC_TUNNEL_URL, SVC_TUNNEL_GATE_SECRET).
          const exported = Object.keys(writes.variables)
          const missed = unmaskedSecretOutputs(writes.outputs, masked)
          if (missed.length > 0) host.mask(missed)
          try {
            host.handOver(withPrintableSummary(writes))
          } catch (error) {
            // Nobody will know its URLs: the tunnel goes, then the kind revokes the credential.
            await tunnel?.close()
            throw new ExplainedError(
              `Could not hand the credential to later steps: ${describeUnexpected(error)}. Nothing was handed out, and the credential is revoked rather than left unused.`
            )
          }
          log.info(
            `${obtained.announcement}${exported.length > 0 ? ` Exported ${listExported(exported, settings.envPrefix)}.` : ''}`
          )
        },
        explain: error =>
          explainFailure(error, {
            baseUrl,
            project,
            nowMs: clock.now(),
            label: name => options.label(name),
            sharing
          }),
        tempRoot: host.tempRoot,
        tempRootName: host.tempRootName,
        run: host.run,
        ...(share.mode === 'create' && {
          shareForRun: { scope: share.scope, label: name => options.label(name) }
        })
      }
      await (opened
        ? useSharedCredential(opened, context, name => options.label(name))
        : obtainCredential(settings, context))
    } finally {
      // No credential (or a failure before the tunnel was configured): no process is left.
      await tunnel?.stopUnused()
    }
    return { status: 'provisioned' }
  } catch (error) {
    return {
      status: 'failed',
      message:
        error instanceof ExplainedError
          ? error.message
          : explainFailure(error, {
              baseUrl,
              project,
              nowMs: clock.now(),
              label: name => options.label(name),
              sharing
            })
    }
  }
}

/**
 * "SVC_TUNNEL_TOKEN, _USER, _HOST, _PORT and _URL": the shared start once, then only what
 * differs. A name that does not share it is written whole.
 */
function listExported(names: string[], prefix: string): string {
  const [first, ...rest] = names
  const start = `${prefix}_TUNNEL`
  const short = rest.map(name => (name.startsWith(`${start}_`) ? name.slice(start.length) : name))
  if (short.length === 0) return first
  return `${[first, ...short.slice(0, -1)].join(', ')} and ${short.at(-1)}`
}
