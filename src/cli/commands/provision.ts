/**
 * `provision`: the core's main step, then the env file (and the outputs file) written whole.
 * A credential whose files cannot be written is revoked at once, so it never lives unknown.
 */
import { provision } from '../../core/provision.js'
import { revoke } from '../../core/revoke.js'
import { describeUnexpected } from '../../core/text/describe-error.js'
import type { CliSettings } from '../cli-settings.js'
import { writeEnvFile } from '../env-file.js'
import type { CliHost } from '../host.js'
import { writePrivateFile } from '../private-file.js'
import { fileState, loadStateFile } from '../state-file.js'
import { startCommand, type CommandInput } from './context.js'

export async function provisionCommand(input: CommandInput): Promise<number> {
  const started = startCommand(input, settings => fileState(settings.stateFile))
  if ('error' in started) return fail(input, started.error)
  const { host, settings, state } = started
  const earlier = leftover(settings, host)
  if (earlier !== undefined) return fail(input, earlier)

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
      `Could not write ${settings.envFile} or the outputs file (${describeUnexpected(error)}); revoking the credential, since no later step could use it.`
    )
    await revoke(host)
    state.remove()
    return fail(
      input,
      `Could not write the credential's files: ${describeUnexpected(error)}. Check that the folders are writable.`
    )
  }
  host.log.info(
    `Wrote ${Object.keys(host.variables).length} variables to ${settings.envFile}; load them with: set -a; . ${shellPath(settings.envFile)}; set +a`
  )
  return 0
}

/**
 * A state file that already holds a credential or a tunnel belongs to a provision nobody
 * revoked: overwriting it would lose the only record of what to clean up.
 */
function leftover(settings: CliSettings, host: CliHost): string | undefined {
  const found = loadStateFile(settings.stateFile)
  if (found.type === 'none' || (found.type === 'state' && Object.keys(found.values).length === 0)) {
    return undefined
  }
  const flag = host.options.label('state-file')
  if (found.type === 'foreign') {
    return `${settings.stateFile} (${flag}) exists and is not a tunnel-credentials state file. Move it away, or choose another ${flag}.`
  }
  return `${settings.stateFile} (${flag}) records a credential or tunnel that was never revoked. Run tunnel-credentials revoke first, with the same options.`
}

function fail(input: CommandInput, message: string): number {
  input.terminal.stderr(`Error: ${message}`)
  return 1
}

/** The path as a shell word, for the hint line: quoted only when it needs to be. */
function shellPath(path: string): string {
  return /^[A-Za-z0-9_./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`
}
