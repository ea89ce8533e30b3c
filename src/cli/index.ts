/**
 * The `tunnel-credentials` command: the second host of the core, for every CI system. Exit
 * codes: 0 success, 1 failure, 2 a usage error.
 */
import { describeUnexpected } from '../core/text/describe-error.js'
import { parseArguments, UsageError } from './arguments.js'
import { provisionCommand } from './commands/provision.js'
import { revokeCommand } from './commands/revoke.js'
import { runCommand } from './commands/run.js'
import { HELP_TEXT, VERSION_TEXT } from './help.js'
import type { Terminal } from './host.js'

export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv,
  terminal: Terminal
): Promise<number> {
  const usageError = (error: unknown): number => {
    if (!(error instanceof UsageError)) throw error
    terminal.stderr(`Usage error: ${error.message} See tunnel-credentials --help.`)
    return 2
  }
  let parsed
  try {
    parsed = parseArguments(argv)
  } catch (error) {
    return usageError(error)
  }
  if (parsed.type === 'help') return (terminal.stdout(HELP_TEXT.trimEnd()), 0)
  if (parsed.type === 'version') return (terminal.stdout(VERSION_TEXT), 0)
  if (parsed.type === 'replay') {
    // No input object: replay reads no variable, so it cannot send or print one.
    // Loaded only for replay: provision, revoke and run start without its code.
    const { replayCommand } = await import('./commands/replay.js')
    return await replayCommand(parsed.args, terminal).catch(error => {
      if (error instanceof UsageError) return usageError(error)
      terminal.stderr(
        `Error: unexpected error in replay: ${describeUnexpected(error)}. This is a bug in tunnel-credentials; please report it with this output.`
      )
      return 1
    })
  }
  const input = { flags: parsed.flags, env, terminal }
  try {
    if (parsed.command === 'provision') return await provisionCommand(input)
    if (parsed.command === 'revoke') return await revokeCommand(input)
    return await runCommand(input, parsed.commandLine)
  } catch (error) {
    // A bug, never a stack trace: a trace could quote data.
    terminal.stderr(
      `Error: unexpected error in ${parsed.command}: ${describeUnexpected(error)}. This is a bug in tunnel-credentials; please report it with this output.`
    )
    return 1
  }
}
