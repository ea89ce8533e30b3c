/**
 * `revoke`: the core's post step on the state file, then the env, outputs and state files
 * deleted, but only files this tool wrote. Safe to run twice, and when nothing was provisioned.
 */
import { rmSync } from 'node:fs'
import { printablePath } from '../../core/text/printable.js'
import type { CliSettings } from '../cli-settings.js'
import { removeEnvFile } from '../env-file.js'
import type { CliHost } from '../host.js'
import { isOwnOutputsFile } from '../own-files.js'
import { readRegularFile } from '../private-file.js'
import { fileState, loadStateFile } from '../state-file.js'
import { fail, revokeAndTidy, startCommand, type CommandInput } from './context.js'

export async function revokeCommand(input: CommandInput): Promise<number> {
  let foreignState = false
  const started = startCommand(input, settings => {
    const found = loadStateFile(settings.stateFile)
    foreignState = found.type === 'foreign'
    // Never written to: revoke saves only to clear, and a foreign file must stay as it is.
    return fileState(
      found.type === 'foreign' ? undefined : settings.stateFile,
      found.type === 'state' ? found.values : {}
    )
  })
  if ('error' in started) return fail(input, started.error)
  const { host, settings, state } = started
  if (foreignState) {
    host.log.warning(
      `${printablePath(settings.stateFile)} (${host.options.label('state-file')}) is not a tunnel-credentials state file, so it was left alone and nothing was revoked.`
    )
  } else {
    await revokeAndTidy(host, state, settings.workDir)
  }
  removeFiles(host, settings)
  if (host.failure() !== undefined) return 1
  if (!foreignState) {
    if (host.warnings() > 0) {
      // A credential that could not be revoked is still recorded, so running revoke again retries.
      host.log.info(
        `Kept ${printablePath(settings.stateFile)}, so that running revoke again can retry.`
      )
    } else {
      state.remove()
    }
  }
  return 0
}

/** The env file holds the token: it goes whatever the revoke did, if this tool wrote it. */
function removeFiles(host: CliHost, settings: CliSettings): void {
  if (
    !removeEnvFile(settings.envFile) &&
    readRegularFile(settings.envFile, 1 << 20) !== undefined
  ) {
    host.log.warning(
      `${printablePath(settings.envFile)} was not written by tunnel-credentials, so it was left in place.`
    )
  }
  if (settings.outputsFile !== undefined && isOwnOutputsFile(settings.outputsFile)) {
    rmSync(settings.outputsFile, { force: true })
  }
}
