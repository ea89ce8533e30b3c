/**
 * `run`: provision, start the command with the variables in its environment only, then stop and
 * revoke when it ends, or when the job is interrupted. No env file is written; the state file
 * is, so that a revoke in a later cleanup step still finds what a killed `run` left.
 */
import { spawn } from 'node:child_process'
import { constants } from 'node:os'
import { provision } from '../../core/provision.js'
import { revoke } from '../../core/revoke.js'
import { describeUnexpected } from '../../core/text/describe-error.js'
import { printable } from '../../core/text/printable.js'
import { shareRefusal } from '../share-mode.js'
import { fileState } from '../state-file.js'
import { keepSecretsFromCommand } from '../own-environment.js'
import { claimFiles, fail, finishRevoke, startCommand, type CommandInput } from './context.js'
import { SECRET_VARIABLES } from '../../core/options/option-facts.js'

const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
type ForwardedSignal = (typeof FORWARDED_SIGNALS)[number]

export async function runCommand(given: CommandInput, commandLine: string[]): Promise<number> {
  // First: COMMAND can read this process's environment, which must not show it the API key.
  const input = keepSecretsFromCommand(given)
  if (input === undefined) return 1
  // The tunnel also ends when this process does, however it ends: even kill -9 leaves none.
  let variables: Record<string, string> = {}
  const started = startCommand(input, {
    makeState: settings => fileState(settings.stateFile),
    // No file: the variables go into the command's environment only.
    deliver: () => writes => (variables = writes.variables),
    watchPid: process.pid
  })
  if ('error' in started) return fail(input, started.error)
  const { host, state } = started
  const unfit = shareRefusal('run', host.options)
  if (unfit !== undefined) return fail(input, unfit)
  const refused = claimFiles(started.settings, host, { writesVariables: false })
  if (refused !== undefined) return fail(input, refused)
  // Caught from the start: a signal during provision cancels the command, never the cleanup.
  let received: ForwardedSignal | undefined
  let forward: (signal: ForwardedSignal) => void = signal => (received ??= signal)
  const handlers = FORWARDED_SIGNALS.map(signal => {
    const handler = () => forward(signal)
    process.on(signal, handler)
    return [signal, handler] as const
  })
  try {
    const provisioned = await provision(host)
    if (provisioned.status === 'failed') {
      if (state.isEmpty()) state.remove()
      return fail(input, provisioned.message)
    }
    const code =
      received === undefined
        ? await runChild(
            commandLine,
            childEnvironment(input.env, variables),
            child => {
              forward = signal => child.kill(signal)
            },
            input.terminal
          )
        : 128 + constants.signals[received]
    forward = signal => (received ??= signal)
    host.log.info('The command ended; stopping the tunnel and revoking the credential.')
    const revoked = finishRevoke(input, await revoke(host), state, started.settings.stateFile)
    return revoked !== 0 && code === 0 ? revoked : code
  } finally {
    for (const [signal, handler] of handlers) process.off(signal, handler)
  }
}

/**
 * The job's environment with the credential's variables, and without the secrets the CLI
 * itself reads: the command gets the tunnel credential, not the API key that makes them.
 */
function childEnvironment(
  env: NodeJS.ProcessEnv,
  variables: Record<string, string>
): NodeJS.ProcessEnv {
  const result = { ...env, ...variables }
  for (const variable of SECRET_VARIABLES) delete result[variable]
  return result
}

/** The command's exit code; 128 + the signal's number when a signal ended it, as shells do. */
function runChild(
  commandLine: string[],
  env: NodeJS.ProcessEnv,
  started: (child: ReturnType<typeof spawn>) => void,
  terminal: CommandInput['terminal']
): Promise<number> {
  return new Promise(resolve => {
    const [file, ...args] = commandLine
    const child = spawn(file, args, { stdio: 'inherit', env })
    started(child)
    child.once('error', (error: NodeJS.ErrnoException) => {
      // The command line is text from outside: cleaned, so it cannot start a line of its own.
      terminal.stderr(`Error: could not start ${printable(file)}: ${startError(error)}.`)
      resolve(127)
    })
    child.once('exit', (code, signal) =>
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0))
    )
  })
}

function startError(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return 'no such command (check its name and PATH)'
  if (error.code === 'EACCES') return 'it is not executable'
  return describeUnexpected(error)
}
