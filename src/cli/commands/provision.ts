/**
 * `provision`: the core's main step, whose one hand-over writes the env file (and the outputs
 * file) whole. A credential whose files cannot be written is revoked by the core at once, so it
 * never lives unknown.
 */
import type { FinalWrites } from '../../core/host.js'
import { provision } from '../../core/provision.js'
import type { CliSettings } from '../cli-settings.js'
import { removeEnvFile, writeEnvFile } from '../env-file.js'
import { removeOwnOutputsFile } from '../own-files.js'
import { writePrivateFile } from '../private-file.js'
import { removeSharedFile, SHARED_VARIABLE, writeSharedFile } from '../shared-file.js'
import { shareRefusal } from '../share-mode.js'
import { fileState } from '../state-file.js'
import { printablePath } from '../../core/text/printable.js'
import { fail, claimFiles, startCommand, type CommandInput } from './context.js'

export async function provisionCommand(input: CommandInput): Promise<number> {
  let written = 0
  let shared = false
  const started = startCommand(input, {
    makeState: settings => fileState(settings.stateFile),
    deliver: settings => writes => {
      shared = writeFiles(settings, writes)
      written = Object.keys(writes.variables).length
    },
    writesOutputs: settings => settings.outputsFile !== undefined
  })
  if ('error' in started) return fail(input, started.error)
  const { host, settings, state } = started
  const unfit = shareRefusal('provision', host.options)
  if (unfit !== undefined) return fail(input, unfit)
  const refused = claimFiles(settings, host, { writesVariables: true })
  if (refused !== undefined) return fail(input, refused)
  // One an earlier run left would hand this run's jobs a credential of that run, if this one fails.
  removeSharedFile(settings)

  const outcome = await provision(host)
  if (outcome.status === 'failed') {
    // The core revoked and cleared what it could; a state file with nothing in it goes too.
    if (state.isEmpty()) state.remove()
    return fail(input, outcome.message)
  }
  // The claim alone records nothing: a credential with nothing to revoke leaves no state file.
  if (state.isEmpty()) state.remove()
  host.log.info(
    `Wrote ${written} variables to ${printablePath(settings.envFile)}; load them with: set -a; . ${printablePath(shellPath(settings.envFile))}; set +a`
  )
  if (shared && settings.sharedCredentialFile !== undefined) {
    host.log.info(
      `Wrote ${SHARED_VARIABLE} to ${printablePath(settings.sharedCredentialFile)} for the run's other jobs (sealed: it opens only with the API key).`
    )
  }
  return 0
}

/**
 * Every file or none: an env file whose outputs file failed would hold a revoked token, and a
 * shared credential whose hand-over failed would send the other jobs to a revoked one.
 */
function writeFiles(settings: CliSettings, { variables, outputs }: FinalWrites): boolean {
  writeEnvFile(settings.envFile, variables)
  try {
    if (settings.outputsFile !== undefined) {
      writePrivateFile(settings.outputsFile, `${JSON.stringify(outputs, null, 2)}\n`)
    }
    // Only in its own file: the variables file holds the token, and the setup job's dotenv
    // report reaches every later job of the pipeline.
    const sealed = outputs['shared-credential'] ?? ''
    if (settings.sharedCredentialFile === undefined || sealed === '') return false
    writeSharedFile(settings.sharedCredentialFile, sealed)
    return true
  } catch (error) {
    removeEnvFile(settings.envFile)
    removeOwnOutputsFile(settings.outputsFile)
    throw error
  }
}

/** The path as a shell word, for the hint line: quoted only when it needs to be. */
function shellPath(path: string): string {
  return /^[A-Za-z0-9_./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`
}
