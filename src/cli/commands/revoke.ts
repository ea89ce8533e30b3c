/**
 * `revoke`: the core's post step on the state file, then the env, outputs and state files
 * deleted, but only files this tool wrote. Safe to run twice, and when nothing was provisioned.
 * It does all it can whatever is missing: a work folder that is gone, or a folder at a file's
 * path, does not keep it from stopping the tunnel and revoking the credential. A credential the
 * state records as shared (`--share create` once handed over, `--share use`) is left to the run;
 * `--share revoke`, the run's final job, revokes the one SVC_SHARED_CREDENTIAL names.
 */
import { lstatSync } from 'node:fs'
import { provision } from '../../core/provision.js'
import { revoke } from '../../core/revoke.js'
import type { Host } from '../../core/host.js'
import { printablePath } from '../../core/text/printable.js'
import type { CliSettings } from '../cli-settings.js'
import { removeEnvFile } from '../env-file.js'
import { removeOwnOutputsFile } from '../own-files.js'
import { pathTaken, readRegularFile } from '../private-file.js'
import { requestedShare } from '../share-mode.js'
import { fileState, loadStateFile } from '../state-file.js'
import { fail, finishRevoke, startCommand, type CommandInput, type FileState } from './context.js'

export async function revokeCommand(input: CommandInput): Promise<number> {
  let foreignState = false
  const started = startCommand(input, {
    forRevoke: true,
    makeState: settings => {
      const found = loadStateFile(settings.stateFile)
      foreignState = found.type === 'foreign'
      // Never written to: revoke saves only to clear, and a foreign file must stay as it is.
      return fileState(
        found.type === 'foreign' ? undefined : settings.stateFile,
        found.type === 'state' ? found.values : {}
      )
    }
  })
  if ('error' in started) return fail(input, started.error)
  const { host, settings } = started
  if (requestedShare(host.options) !== 'revoke')
    return await revokeRecorded(input, started, foreignState)
  // The run's final job needs no state file: SVC_SHARED_CREDENTIAL names what to revoke. One that
  // is there (this job also used the tunnel) is finished first, with every check of a plain revoke.
  const code = pathTaken(settings.stateFile)
    ? await revokeRecorded(input, started, foreignState)
    : 0
  const shared = await revokeSharedCredential(input, host)
  return code !== 0 ? code : shared
}

/** What the state file records: the tunnel stopped, the credential revoked, the files deleted. */
async function revokeRecorded(
  input: CommandInput,
  { host, settings, state }: { host: Host; settings: CliSettings; state: FileState },
  foreignState: boolean
): Promise<number> {
  const flag = host.options.label('state-file')
  if (isDirectory(settings.stateFile)) {
    // No record can be read from a folder: what provision started is unknown from here, but the
    // env and outputs files (which hold the token) still go.
    removeFiles(host, settings)
    return fail(
      input,
      `${printablePath(settings.stateFile)} (${flag}) is a folder, not the state file provision wrote, so nothing could be stopped or revoked. Run revoke with ${flag} naming the file provision wrote.`
    )
  }
  if (foreignState) {
    host.log.warning(
      `${printablePath(settings.stateFile)} (${flag}) is not a tunnel-credentials state file, so it was left alone and nothing was revoked.`
    )
    removeFiles(host, settings)
    return 0
  }
  const outcome = await revoke(host)
  removeFiles(host, settings)
  return finishRevoke(input, outcome, state, settings.stateFile)
}

/**
 * `--share revoke`: the core opens SVC_SHARED_CREDENTIAL and revokes it (gone already is fine;
 * an empty one is a notice), as the action's main step does with `share: revoke`.
 */
async function revokeSharedCredential(input: CommandInput, host: Host): Promise<number> {
  const outcome = await provision(host)
  if (outcome.status === 'failed') return fail(input, outcome.message)
  if (outcome.status !== 'shared-revoked') {
    throw new Error(`share revoke ended as ${outcome.status}, not shared-revoked`)
  }
  return 0
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory()
  } catch {
    return false
  }
}

/** The env file holds the token: it goes whatever the revoke did, if this tool wrote it. */
function removeFiles(host: Host, settings: CliSettings): void {
  if (
    !removeEnvFile(settings.envFile) &&
    readRegularFile(settings.envFile, 1 << 20) !== undefined
  ) {
    host.log.warning(
      `${printablePath(settings.envFile)} was not written by tunnel-credentials, so it was left in place.`
    )
  }
  removeOwnOutputsFile(settings.outputsFile)
}
