import * as core from '@actions/core'
import { systemClock, type Clock } from '../core/clock.js'
import { ExplainedError } from '../core/errors.js'
import { explainFailure } from '../core/service/failures.js'
import { readMainSettings } from '../core/settings/inputs.js'
import { obtainCredential } from '../core/kinds/registry.js'
import { printable } from '../core/text/printable.js'
import { holdWrites, maskSecrets, publishObtained, runnerLog } from './publish.js'
import { createService } from './service-factory.js'
import { clearCredential, markMainStarted, saveCredential } from './state.js'
import type { KeeperLaunch } from './tunnel-steps.js'
import { checkUrlsBeforeRequest } from '../core/tunnel/urls.js'
import { runIdentityFrom } from './run-identity.js'
import { runnerTemp } from './runner-temp.js'

/**
 * The main step: inputs → the kind obtains its credential and hands it over: to the runner, then
 * to the tunnel when `expose` is set. Never throws; failures fail the step. `keeperLaunch` is for
 * tests.
 */
export async function runMain(
  clock: Clock = systemClock,
  keeperLaunch?: KeeperLaunch
): Promise<void> {
  markMainStarted()
  // Before anything can print, so not even an error message can show a key or token.
  maskSecrets([core.getInput('api-key'), core.getInput('tunnel-token')].filter(Boolean))
  let baseUrl = printable(core.getInput('base-url'))
  let project: string | undefined
  try {
    const settings = readMainSettings(name => core.getInput(name))
    if ('baseUrl' in settings) baseUrl = settings.baseUrl
    if (settings.kind === 'cicd') project = settings.project
    checkUrlsBeforeRequest(settings)
    // Loaded only with `expose`, so a step without it loads no tunnel code. Its process starts
    // now, so that its start overlaps the request for the credential (see launchKeeper).
    const tunnel = settings.tunnel
      ? (await import('./tunnel-steps.js')).prepareTunnel(settings.tunnel, keeperLaunch)
      : undefined
    try {
      await obtainCredential(settings, {
        service: () => {
          // Only kinds that read base-url call the service; `existing` never does.
          if (!('baseUrl' in settings))
            throw new Error(`credential ${settings.kind} sends no request`)
          return createService(settings.baseUrl, settings.http, clock)
        },
        log: runnerLog,
        mask: maskSecrets,
        save: saveCredential,
        clearSaved: clearCredential,
        publish: async obtained => {
          // All or nothing: later steps get no variable, output or summary unless the whole
          // hand-over succeeds. Secrets were masked as they arrived, and state for post is saved.
          const writes = holdWrites()
          const exported = publishObtained(obtained, settings, writes)
          // Part of the hand-over: a tunnel that fails gives the credential back at once, as any
          // failure after the credential was issued does.
          if (tunnel) await tunnel.open(obtained.login, settings, writes)
          writes.flush()
          core.info(
            `${obtained.announcement}${exported.length > 0 ? ` Exported ${listExported(exported, settings.envPrefix)}.` : ''}`
          )
        },
        explain: error => explainFailure(error, { baseUrl, project, nowMs: clock.now() }),
        tempRoot: runnerTemp(),
        run: runIdentityFrom(process.env)
      })
    } finally {
      // No credential (or a failure before the tunnel was configured): no process is left.
      await tunnel?.abandon()
    }
  } catch (error) {
    core.setFailed(
      error instanceof ExplainedError
        ? error.message
        : explainFailure(error, { baseUrl, project, nowMs: clock.now() })
    )
  }
}

/** "SVC_TUNNEL_TOKEN, _USER, _HOST and _PORT": the prefix once, then only what differs. */
export function listExported(names: string[], prefix: string): string {
  const [first, ...rest] = names
  const short = rest.map(name => name.slice(`${prefix}_TUNNEL`.length))
  if (short.length === 0) return first
  return `${[first, ...short.slice(0, -1)].join(', ')} and ${short.at(-1)}`
}
