/**
 * What every command starts with, in this order: the CI system and its masking (so the secrets
 * already known are hidden before any line), one line saying which masking applied, then the
 * CLI's own settings and the host.
 */
import type { FinalWrites, Host, TunnelEnd } from '../../core/host.js'
import { leftUnfinished, type RevokeOutcome } from '../../core/outcome.js'
import type { FlagName } from '../option-names.js'
import { detectCiSystem } from '../ci-system.js'
import { createMasker, maskingLine } from '../masking.js'
import { readCliSettings, type CliSettings } from '../cli-settings.js'
import { cliHost, type Terminal } from '../host.js'
import { cliOptions } from '../options.js'
import { isOwnEnvFile } from '../env-file.js'
import { foreignFileAmong, isOwnOutputsFile, isOwnRequestLog } from '../own-files.js'
import { isOwnSharedFile } from '../shared-file.js'
import { shareScopeWarning } from '../share-mode.js'
import { claimStateFile, type fileState } from '../state-file.js'
import { describeUnexpected } from '../../core/text/describe-error.js'
import { printablePath } from '../../core/text/printable.js'
import { SECRET_OPTION_NAMES } from '../../core/options/option-facts.js'

export interface CommandInput {
  flags: ReadonlyMap<FlagName, string>
  env: NodeJS.ProcessEnv
  terminal: Terminal
}

export type FileState = ReturnType<typeof fileState>

export interface CommandParts {
  makeState(settings: CliSettings): FileState
  /** Where the command puts what provision hands over; revoke hands nothing over. */
  deliver?(settings: CliSettings): (writes: FinalWrites) => void
  /** Whether what is handed over includes the outputs (provision with --outputs-file). */
  writesOutputs?(settings: CliSettings): boolean
  /** `run` passes its own pid: the tunnel process then ends with it. */
  watchPid?: number
  /** Revoke reads what it needs to stop and revoke, even where provision's folders are gone. */
  forRevoke?: boolean
}

/** Masking first, then settings; an error (for the error line) when the settings are wrong. */
export function startCommand(
  input: CommandInput,
  { makeState, deliver, writesOutputs, watchPid, forRevoke = false }: CommandParts
): { host: Host; settings: CliSettings; state: FileState } | { error: string } {
  const { env, terminal } = input
  const options = cliOptions(input.flags, env)
  const ci = detectCiSystem(env)
  const mask = createMasker(ci, terminal)
  const secrets = SECRET_OPTION_NAMES.map(name => options.read(name)).filter(Boolean)
  terminal.stdout(maskingLine(ci, secrets.length > 0 ? mask(secrets) : undefined))
  const unscoped = shareScopeWarning(ci, options)
  if (unscoped !== undefined) terminal.stderr(`Warning: ${unscoped}`)
  let settings: CliSettings
  try {
    settings = readCliSettings(options, { forRevoke })
  } catch (error) {
    return { error: (error as Error).message }
  }
  const state = makeState(settings)
  const host = cliHost({
    options,
    terminal,
    ci,
    // A credential that could not be hidden is still never printed: say so, once.
    mask: warnOnce(mask, terminal, ci),
    state,
    workDir: settings.workDir,
    ...(writesOutputs?.(settings) === true && {
      outputsName: `the file ${options.label('outputs-file')} names`
    }),
    requestLog: settings.requestLog,
    tunnelEnd: tunnelEnd(settings, watchPid),
    env,
    deliver:
      deliver?.(settings) ??
      (() => {
        throw new Error('this command hands nothing over')
      })
  })
  return { host, settings, state }
}

function tunnelEnd(settings: CliSettings, watchPid: number | undefined): TunnelEnd {
  return {
    ...(settings.tunnelMaxMinutes !== undefined && { maxMinutes: settings.tunnelMaxMinutes }),
    ...(watchPid !== undefined && { watchPid })
  }
}

/** The one error line of a failed command; its exit code. */
export function fail(input: CommandInput, message: string): number {
  input.terminal.stderr(`Error: ${message}`)
  return 1
}

/**
 * What a revoke's outcome means on a command line: its error and warning lines, and the exit
 * code (1 when fail-on-revoke-error asks, or the options name another kind than the record). The
 * state file goes once everything it records is finished, whatever was warned about on the way;
 * it stays only while a credential or a tunnel process may still be alive, for a later revoke.
 */
export function finishRevoke(
  input: CommandInput,
  outcome: RevokeOutcome,
  state: FileState,
  stateFile: string
): number {
  let code = 0
  // What came through the tunnel: the counts and the request log's path (the log stays, it holds
  // no secret). The tunnel's own line, its timeline in it, was logged as it stopped.
  if (outcome.requests?.countsLine !== undefined) input.terminal.stdout(outcome.requests.countsLine)
  if (outcome.kindMismatch !== undefined) code = fail(input, outcome.kindMismatch)
  const { credential } = outcome
  if (credential.status === 'failed') {
    if (credential.report === 'fail-step') code = fail(input, credential.message)
    else if (credential.report === 'warning')
      input.terminal.stderr(`Warning: ${credential.message}`)
    else input.terminal.stdout(credential.message)
  }
  if (leftUnfinished(outcome)) {
    input.terminal.stdout(
      `Kept ${printablePath(stateFile)}, so that running revoke again can retry.`
    )
  } else {
    state.remove()
  }
  return code
}

function warnOnce(
  mask: (secrets: string[]) => boolean,
  terminal: CommandInput['terminal'],
  ci: ReturnType<typeof detectCiSystem>
): (secrets: string[]) => void {
  let warned = false
  return secrets => {
    if (mask(secrets) || warned || ci.masking === undefined) return
    warned = true
    terminal.stderr(
      `Warning: ${ci.masking.describe} did not work, so ${ci.name} will not hide the credential; tunnel-credentials never prints it.`
    )
  }
}

/**
 * Before any request, so that no credential is made that could not be recorded or handed over:
 * the files provision writes are free or this tool's own, and the state file is taken for this
 * command alone (created only if absent). A state file already there belongs to a provision
 * running now, or to one nobody revoked: overwriting it would lose the only record of what to
 * clean up. `run` writes no variables or outputs file, so only its state file is checked.
 */
export function claimFiles(
  settings: CliSettings,
  host: Host,
  { writesVariables }: { writesVariables: boolean }
): string | undefined {
  const label = (name: string) => host.options.label(name)
  const foreign = writesVariables
    ? foreignFileAmong([
        { option: 'variables-file', path: settings.envFile, isOwn: isOwnEnvFile },
        { option: 'outputs-file', path: settings.outputsFile, isOwn: isOwnOutputsFile },
        { option: 'request-log', path: settings.requestLog, isOwn: isOwnRequestLog },
        {
          option: 'shared-credential-file',
          path: settings.sharedCredentialFile,
          isOwn: isOwnSharedFile
        }
      ])
    : undefined
  if (foreign !== undefined) {
    const flag = label(foreign.option)
    return `${printablePath(foreign.path)} (${flag}) exists and was not written by tunnel-credentials, which never replaces such a file. Move it away, or choose another ${flag}.`
  }
  const flag = label('state-file')
  let found
  try {
    found = claimStateFile(settings.stateFile)
  } catch (error) {
    return `Could not create ${printablePath(settings.stateFile)} (${flag}): ${describeUnexpected(error)}. Check that its folder is writable.`
  }
  if (found === undefined) return undefined
  if (found.type === 'foreign') {
    return `${printablePath(settings.stateFile)} (${flag}) exists and is not a tunnel-credentials state file. Move it away, or choose another ${flag}.`
  }
  if (found.type === 'state' && Object.keys(found.values).length === 0) {
    return `${printablePath(settings.stateFile)} (${flag}) is taken by another provision or run in this folder, or by one that was stopped before it obtained anything. Wait for it to end; if none is running, run tunnel-credentials revoke with the same options to clear it.`
  }
  return `${printablePath(settings.stateFile)} (${flag}) records a credential or tunnel that was never revoked. Run tunnel-credentials revoke first, with the same options.`
}
