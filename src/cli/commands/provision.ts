/**
 * `provision`: the core's main step, then the env file (and the outputs file) written whole.
 * A credential whose files cannot be written is revoked at once, so it never lives unknown.
 */
import { provision } from '../../core/provision.js'
import { describeUnexpected } from '../../core/text/describe-error.js'
import { printablePath } from '../../core/text/printable.js'
import { writeEnvFile } from '../env-file.js'
import { writePrivateFile } from '../private-file.js'
import { fileState } from '../state-file.js'
import { claimFiles, fail, revokeAndTidy, startCommand, type CommandInput } from './context.js'

export async function provisionCommand(input: CommandInput): Promise<number> {
  const started = startCommand(input, settings => fileState(settings.stateFile))
  if ('error' in started) return fail(input, started.error)
  const { host, settings, state } = started
  const refused = claimFiles(settings, host, { writesVariables: true })
  if (refused !== undefined) return fail(input, refused)

  await provision(host)
  if (host.failure() !== undefined) {
    // The core revoked and cleared what it had; a state file with nothing in it goes too.
    if (state.isEmpty()) state.remove()
    return 1
  }
  try {
    writeEnvFile(settings.envFile, host.variables)
    if (settings.outputsFile !== undefined) {
      writePrivateFile(settings.outputsFile, `${JSON.stringify(host.outputs, null, 2)}\n`)
    }
  } catch (error) {
    host.log.warning(
      `Could not write ${printablePath(settings.envFile)} or the outputs file (${describeUnexpected(error)}); revoking the credential, since no later step could use it.`
    )
    await revokeAndTidy(host, state, settings.workDir)
    state.remove()
    return fail(
      input,
      `Could not write the credential's files: ${describeUnexpected(error)}. Check that the folders are writable.`
    )
  }
  // The claim alone records nothing: a credential with nothing to revoke leaves no state file.
  if (state.isEmpty()) state.remove()
  host.log.info(
    `Wrote ${Object.keys(host.variables).length} variables to ${printablePath(settings.envFile)}; load them with: set -a; . ${printablePath(shellPath(settings.envFile))}; set +a`
  )
  return 0
}

/** The path as a shell word, for the hint line: quoted only when it needs to be. */
function shellPath(path: string): string {
  return /^[A-Za-z0-9_./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`
}
