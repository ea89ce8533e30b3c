import * as core from '@actions/core'
import { systemClock, type Clock } from './clock.js'
import {
  issuedCredential,
  parseCredential,
  secretsIn,
  type IssuedCredential
} from './credential.js'
import { ActionError } from './errors.js'
import { explainFailure } from './failures.js'
import { readMainSettings, type MainSettings } from './inputs.js'
import { printable } from './printable.js'
import { maskSecrets, publishCredential } from './publish.js'
import type { CredentialService } from './service.js'
import { createService } from './service-factory.js'
import { clearCredential, markMainStarted, saveCredential } from './state.js'
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
  let baseUrl = printable(core.getInput('base-url'))
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
    const raw = await requestCredential(service, settings)
    // Masked while still raw, so that even a response that fails validation cannot leak it later.
    maskSecrets(secretsIn(raw))
    await acceptCredential(raw, settings, service, clock, keeperLaunch)
  } catch (error) {
    core.setFailed(
      error instanceof ActionError
        ? error.message
        : explainFailure(error, { baseUrl, project, nowMs: clock.now() })
    )
  }
}

function requestCredential(service: CredentialService, settings: MainSettings): Promise<unknown> {
  if (settings.flavour === 'free') {
    core.info(`Requesting a free 5-minute tunnel credential from ${settings.baseUrl}`)
    return service.createFreeCredential()
  }
  // project and environment are single-line plain text: inputs.ts rejected anything else.
  const environment = settings.environment ? ` (${settings.environment})` : ''
  core.info(
    `Provisioning tunnel credentials for project "${settings.project}"${environment} from ${settings.baseUrl}`
  )
  return service.provisionCredential(settings)
}

/**
 * Validates the answer and writes it to the runner. Once the answer holds a usable token and
 * user, the service has issued a credential, so any failure from there on (the tunnel's too)
 * revokes it before the step fails; and state names it first, so that post revokes it if that
 * revoke fails too.
 */
async function acceptCredential(
  raw: unknown,
  settings: MainSettings,
  service: CredentialService,
  clock: Clock,
  keeperLaunch?: KeeperLaunch
): Promise<void> {
  const issued = settings.flavour === 'cicd' ? issuedCredential(raw) : undefined
  try {
    if (issued?.nameable) {
      saveCredential({
        flavour: 'cicd',
        tunnelUser: issued.tunnelUser,
        baseUrl: settings.baseUrl,
        rejected: true
      })
    }
    const credential = parseCredential(raw, settings.flavour, settings)
    if (credential.portDefaulted) {
      core.notice(
        `The service sent no tunnel_port; using the default port ${credential.tunnelPort}.`
      )
    }
    // Accepted: post now honours the revoke input. Saved before publishing, so a publish that
    // fails halfway still leaves post what it needs.
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
    if (issued !== undefined) await revokeUnused(service, settings, issued, clock)
    throw error
  }
}

/**
 * Best effort, at once: a credential this step could not use must not live out its TTL. If the
 * revoke fails, the state saved for it stays, and post tries again. A user that holds the token
 * was not saved, so this is its only revoke, and it is not named.
 */
async function revokeUnused(
  service: CredentialService,
  settings: MainSettings,
  issued: IssuedCredential,
  clock: Clock
): Promise<void> {
  const who = issued.nameable
    ? `tunnel user ${printable(issued.tunnelUser)}`
    : 'a tunnel user that holds the token'
  try {
    await service.revokeCredential(settings.apiKey, issued.tunnelUser)
  } catch (error) {
    const reason = explainFailure(error, { baseUrl: settings.baseUrl, nowMs: clock.now() })
    if (issued.nameable) {
      core.info(
        `Could not revoke the credential of ${who} yet (${reason}); the post step will try again.`
      )
    } else {
      core.warning(
        `Could not revoke the credential of ${who} (${reason}). It cannot be saved for the post step, so it stays valid until it expires.`
      )
    }
    return
  }
  core.info(`Revoked the credential of ${who}, which this step could not use.`)
  try {
    clearCredential()
  } catch {
    // The state file is what just failed: post finds the token gone (404), which is information.
  }
}
