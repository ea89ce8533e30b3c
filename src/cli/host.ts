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
import { bundledKeeper } from './keeper-launch.js'

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
  /** Where the outputs go, as messages name it; absent when the command writes none. */
  outputsName?: string
  /** Where the tunnel writes its request log (--request-log); revoke keeps it. */
  requestLog: string
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
    ...(parts.outputsName !== undefined && { outputsName: parts.outputsName }),
    run: ci.run,
    // Absent outside GitHub Actions and GitLab CI: the core then refuses every `share` but off.
    ...(ci.shareScope !== undefined && { shareScope: ci.shareScope }),
    clock: systemClock,
    keeperLaunch: () => ({ ...bundledKeeper(parts.env), ends: parts.tunnelEnd }),
    requestLogPath: () => parts.requestLog
  }
}

/**
 * The summary's tables as lines (never a secret): a two-column table as `field: value`, a wider
 * one as its cells joined.
 */
function printSummary(terminal: Terminal, tables: SummaryTable[]): void {
  for (const { heading, lines = [], columns, rows } of tables) {
    terminal.stdout(`${heading}:`)
    for (const line of lines) terminal.stdout(`  ${line}`)
    if (columns.length > 2) terminal.stdout(`  ${columns.join(' | ')}`)
    for (const row of rows) {
      terminal.stdout(columns.length > 2 ? `  ${row.join(' | ')}` : `  ${row[0]}: ${row[1]}`)
    }
  }
}
