/**
 * The CLI host: the core's port (core/host.ts) on a terminal and files. Lines go to stdout,
 * warnings to stderr; what main hands over goes to the command's own delivery (the env file, or
 * the environment of `run`'s command) and the summary to stdout. The host keeps no record of what
 * it was told: each command decides from the outcome the core returns. Nothing here prints a
 * secret: the core never puts one in a message, and masking only adds protection where the CI
 * system offers it.
 */
import { systemClock } from '../core/clock.js'
import type {
  FinalWrites,
  Host,
  OptionSource,
  SavedState,
  SummaryTable,
  TunnelEnd
} from '../core/host.js'
import type { CiSystem } from './ci-system.js'
import { bundledTunnelProcess } from './tunnel-process.js'

/** Where the CLI's lines go; the tests capture them. */
export interface Terminal {
  stdout(line: string): void
  stderr(line: string): void
}

export interface CliHostParts {
  options: OptionSource
  terminal: Terminal
  ci: CiSystem
  /** Hides secrets where the CI system can (masking.ts). */
  mask(secrets: string[]): void
  state: SavedState
  workDir: string
  tunnelEnd: TunnelEnd
  env: NodeJS.ProcessEnv
  /** Where the command puts the variables and outputs; throws when it cannot. */
  deliver(writes: FinalWrites): void
}

export function cliHost(parts: CliHostParts): Host {
  const { options, terminal, ci, state } = parts
  return {
    options,
    log: {
      info: message => terminal.stdout(message),
      notice: message => terminal.stdout(`Notice: ${message}`),
      warning: message => terminal.stderr(`Warning: ${message}`)
    },
    mask: parts.mask,
    handOver: writes => {
      parts.deliver(writes)
      printSummary(terminal, writes.summary)
    },
    state,
    tempRoot: parts.workDir,
    tempRootName: options.label('work-dir'),
    run: ci.run,
    clock: systemClock,
    tunnelProcess: () => ({ ...bundledTunnelProcess(parts.env), ends: parts.tunnelEnd })
  }
}

/** The summary's tables as lines: the field, then its value (never a secret). */
function printSummary(terminal: Terminal, tables: SummaryTable[]): void {
  for (const { heading, rows } of tables) {
    terminal.stdout(`${heading}:`)
    for (const [field, value] of rows) terminal.stdout(`  ${field}: ${value}`)
  }
}
