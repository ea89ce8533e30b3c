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
import { loadStateFile, type fileState } from '../state-file.js'

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
  /** `run` passes its own pid: the tunnel process then ends with it. */
  watchPid?: number
  /** Revoke reads what it needs to stop and revoke, even where provision's folders are gone. */
  forRevoke?: boolean
}

/** Masking first, then settings; an error (for the error line) when the settings are wrong. */
export function startCommand(
  input: CommandInput,
  { makeState, deliver, watchPid, forRevoke = false }: CommandParts
): { host: Host; settings: CliSettings; state: FileState } | { error: string } {
  const { env, terminal } = input
  const options = cliOptions(input.flags, env)
  const ci = detectCiSystem(env)
  const mask = createMasker(ci, terminal)
  const secrets = [options.read('api-key'), options.read('tunnel-token')].filter(Boolean)
  terminal.stdout(maskingLine(ci, secrets.length > 0 ? mask(secrets) : undefined))
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
  if (outcome.kindMismatch !== undefined) code = fail(input, outcome.kindMismatch)
  const { credential } = outcome
  if (credential.status === 'failed') {
    if (credential.report === 'fail-step') code = fail(input, credential.message)
    else if (credential.report === 'warning')
      input.terminal.stderr(`Warning: ${credential.message}`)
    else input.terminal.stdout(credential.message)
  }
  if (leftUnfinished(outcome)) {
    input.terminal.stdout(`Kept ${stateFile}, so that running revoke again can retry.`)
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
 * A state file that already holds a credential or a tunnel belongs to a provision nobody
 * revoked: overwriting it would lose the only record of what to clean up.
 */
export function leftoverState(settings: CliSettings, host: Host): string | undefined {
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
