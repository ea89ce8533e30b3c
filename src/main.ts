import * as core from '@actions/core'
import { systemClock, type Clock } from './clock.js'
import { parseCredential, secretsIn } from './credential.js'
import { ActionError } from './errors.js'
import { explainFailure } from './failures.js'
import { readMainSettings, type HttpSettings } from './inputs.js'
import { maskSecrets, publishCredential } from './publish.js'
import { CredentialService } from './service.js'
import { markMainStarted, saveCredential } from './state.js'
import type { KeeperLaunch } from './tunnel/steps.js'

/**
 * The main step: inputs → request → validated credential → runner, then the tunnel when
 * `expose` is set. Never throws; failures fail the step. `keeperLaunch` is for tests.
 */
export async function runMain(
  clock: Clock = systemClock,
  keeperLaunch?: KeeperLaunch
): Promise<void> {
  markMainStarted()
  // Before anything can print, so not even an error message can show the key.
  maskSecrets([core.getInput('api-key')].filter(Boolean))
  let baseUrl = core.getInput('base-url')
  let project: string | undefined
  try {
    const settings = readMainSettings(name => core.getInput(name))
    baseUrl = settings.baseUrl
    project = settings.project
    if (settings.fellBackToFree) {
      core.warning(
        'Input api-key is empty, so `credential: auto` falls back to a free 5-minute credential. ' +
          'This is expected in pull requests from forks and in Dependabot runs, which get no secrets.'
      )
    }
    const service = createService(settings.baseUrl, settings.http, clock)
    core.info(
      settings.flavour === 'cicd'
        ? `Provisioning tunnel credentials for project "${settings.project}"${settings.environment ? ` (${settings.environment})` : ''} from ${settings.baseUrl}`
        : `Requesting a free 5-minute tunnel credential from ${settings.baseUrl}`
    )
    const raw =
      settings.flavour === 'cicd'
        ? await service.provisionCredential(settings)
        : await service.createFreeCredential()
    // Masked while still raw, so that even a response that fails validation cannot leak it later.
    maskSecrets(secretsIn(raw))
    const credential = parseCredential(raw, settings.flavour, settings)

    if (credential.portDefaulted) {
      core.notice(
        `The service sent no tunnel_port; using the default port ${credential.tunnelPort}.`
      )
    }
    // State first: if publishing fails halfway, post can still revoke what exists.
    saveCredential({
      flavour: credential.flavour,
      tunnelUser: credential.tunnelUser,
      baseUrl: settings.baseUrl,
      ...(credential.expiresAt && { expiresAt: credential.expiresAt })
    })
    await publishCredential(credential, settings)
    core.info(
      `Provisioned tunnel user ${credential.tunnelUser} for ${credential.tunnelHost}:${credential.tunnelPort}` +
        `${credential.expiresAt ? `, valid until ${credential.expiresAt}` : ''}.` +
        (settings.exportEnv
          ? ` Exported ${settings.envPrefix}_TUNNEL_TOKEN, _USER, _HOST and _PORT.`
          : '')
    )
    if (settings.tunnel) {
      // Loaded only here, so a step without `expose` loads no tunnel code.
      const { openTunnel } = await import('./tunnel/steps.js')
      await openTunnel(credential, settings, settings.tunnel, keeperLaunch)
    }
  } catch (error) {
    core.setFailed(
      error instanceof ActionError
        ? error.message
        : explainFailure(error, { baseUrl, project, nowMs: clock.now() })
    )
  }
}

export function createService(
  baseUrl: string,
  http: HttpSettings,
  clock: Clock
): CredentialService {
  return new CredentialService({
    baseUrl,
    maxAttempts: http.maxAttempts,
    timeoutSeconds: http.timeoutSeconds,
    sleep: clock.sleep,
    random: clock.random,
    onRetry: ({ attempt, maxAttempts, delayMs, error }) =>
      core.info(
        `Attempt ${attempt} of ${maxAttempts} failed (${error instanceof Error ? error.message : String(error)}); ` +
          `retrying in ${(delayMs / 1000).toFixed(1)} s.`
      )
  })
}
