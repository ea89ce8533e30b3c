/**
 * What `share` means for each command of the CLI. The core reads and checks the option (and
 * refuses it where no run can be named); the CLI only decides which files a command writes and
 * which mode a command can carry out: `create` leaves the credential to the run, so `run`, which
 * revokes what it made when COMMAND ends, cannot; `revoke` is the final job's `revoke` command.
 */
import type { OptionSource } from '../core/host.js'
import type { CiSystem } from './ci-system.js'

export type CliCommand = 'provision' | 'revoke' | 'run'

/** The option as given, for the CLI's own decisions; '' when not set. The core checks it. */
export function requestedShare(options: OptionSource): string {
  return options.read('share').trim().toLowerCase()
}

/** Whether the option asks for sharing at all (anything but off). */
export function sharing(options: OptionSource): boolean {
  return !['', 'off'].includes(requestedShare(options))
}

/** Why the command cannot carry out the mode asked for; undefined when it can. */
export function shareRefusal(command: CliCommand, options: OptionSource): string | undefined {
  const mode = requestedShare(options)
  const given = `${options.label('share')} is ${mode}`
  if (mode === 'revoke' && command !== 'revoke') {
    return `${given}, which is for the run's final job: run tunnel-credentials revoke --share revoke there, which needs no state file.`
  }
  if (mode === 'create' && command === 'run') {
    return `${given}, which leaves the credential to the run's other jobs, but run revokes what it provisions when COMMAND ends: use tunnel-credentials provision --share create in the setup job.`
  }
  return undefined
}

/**
 * The core refuses `share` without a run to bind to, saying where sharing works; only the host
 * can say why a GitHub or GitLab job has none (its signs disagree, or a variable is missing).
 */
export function shareScopeWarning(ci: CiSystem, options: OptionSource): string | undefined {
  if (ci.shareOff === undefined || !sharing(options)) return undefined
  return `tunnel-credentials cannot be sure which ${ci.name} run this is, since ${ci.shareOff}; so nothing can be shared here.`
}
