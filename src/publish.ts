import * as core from '@actions/core'
import type { Credential } from './credential.js'
import { describeUnexpected } from './failures.js'
import type { MainSettings } from './inputs.js'

/** Registers secrets with the runner, which then hides them in every later line of the log. */
export function maskSecrets(secrets: string[]): void {
  for (const secret of secrets) core.setSecret(secret)
}

/** The variables later steps read; one function so main, tests and docs agree on the names. */
export function environmentFor(credential: Credential, prefix: string): Record<string, string> {
  return {
    [`${prefix}_TUNNEL_TOKEN`]: credential.token,
    [`${prefix}_TUNNEL_USER`]: credential.tunnelUser,
    [`${prefix}_TUNNEL_HOST`]: credential.tunnelHost,
    [`${prefix}_TUNNEL_PORT`]: String(credential.tunnelPort)
  }
}

export function outputsFor(credential: Credential, settings: MainSettings): Record<string, string> {
  return {
    token: credential.token,
    'tunnel-user': credential.tunnelUser,
    'client-id': credential.clientId,
    'tunnel-host': credential.tunnelHost,
    'tunnel-port': String(credential.tunnelPort),
    'expires-at': credential.expiresAt ?? '',
    'ttl-minutes': credential.ttlMinutes === undefined ? '' : String(credential.ttlMinutes),
    'project-slug':
      credential.projectSlug ?? (credential.flavour === 'cicd' ? settings.project : ''),
    credential: credential.flavour
  }
}

/**
 * Writes the credential to the runner. Host, port and user are deliberately not masked: they are
 * not secret, and the runner blanks masked values in outputs that other jobs read.
 */
export async function publishCredential(
  credential: Credential,
  settings: MainSettings
): Promise<void> {
  if (settings.exportEnv) {
    for (const [name, value] of Object.entries(environmentFor(credential, settings.envPrefix))) {
      core.exportVariable(name, value)
    }
  }
  for (const [name, value] of Object.entries(outputsFor(credential, settings))) {
    core.setOutput(name, value)
  }
  try {
    await writeSummary(credential, settings)
  } catch (error) {
    // The credential is already out; a summary is a courtesy and must not fail the step.
    core.warning(`Could not write the job summary: ${describeUnexpected(error)}`)
  }
}

async function writeSummary(credential: Credential, settings: MainSettings): Promise<void> {
  // Outside a runner (a local run) there is no summary file; that is not an error.
  if (!process.env.GITHUB_STEP_SUMMARY) return
  const rows: [string, string][] = [
    ['Project', credential.projectSlug ?? settings.project],
    ['Environment', settings.environment],
    ['Tunnel user', credential.tunnelUser],
    ['Tunnel host', credential.tunnelHost],
    ['Tunnel port', String(credential.tunnelPort)],
    ['Expires at', credential.expiresAt ?? 'not given'],
    ['Credential', credential.flavour === 'free' ? 'free (5 minutes, not revocable)' : 'cicd']
  ]
  await core.summary
    .addHeading('Tunnel credentials', 3)
    .addTable([
      [
        { data: 'Field', header: true },
        { data: 'Value', header: true }
      ],
      ...rows.filter(([, value]) => value).map(([field, value]) => [field, escapeHtml(value)])
    ])
    .write()
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, character => `&#${character.charCodeAt(0)};`)
}
