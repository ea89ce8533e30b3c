/**
 * The CLI host: the core's port (core/host.ts) on a terminal and files. Lines go to stdout,
 * warnings and the error to stderr; what main hands over is collected and written by the
 * command once the whole step has succeeded. Nothing here prints a secret: the core never puts
 * one in a message, and masking only ever adds protection where the CI system offers it.
 */
import { systemClock } from '../core/clock.js'
import type { Host, OptionSource, SavedState, TunnelEnd } from '../core/host.js'
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
}

/** The host, and what the step left: variables and outputs, and its failure if it failed. */
export interface CliHost extends Host {
  variables: Record<string, string>
  outputs: Record<string, string>
  failure(): string | undefined
  /** How many warnings the step gave: revoke keeps its state file for a retry after any. */
  warnings(): number
}

export function cliHost(parts: CliHostParts): CliHost {
  const { options, terminal, ci, state } = parts
  let failure: string | undefined
  let warnings = 0
  const host: CliHost = {
    options,
    log: {
      info: message => terminal.stdout(message),
      notice: message => terminal.stdout(`Notice: ${message}`),
      warning: message => {
        warnings += 1
        terminal.stderr(`Warning: ${message}`)
      }
    },
    mask: parts.mask,
    variables: {},
    outputs: {},
    exportVariable: (name, value) => (host.variables[name] = value),
    setOutput: (name, value) => (host.outputs[name] = value),
    summaryTable: (heading, _columns, rows) => {
      terminal.stdout(`${heading}:`)
      for (const [field, value] of rows) terminal.stdout(`  ${field}: ${value}`)
    },
    state,
    fail: message => {
      failure ??= message
      terminal.stderr(`Error: ${message}`)
    },
    failure: () => failure,
    warnings: () => warnings,
    tempRoot: parts.workDir,
    tempRootName: options.label('work-dir'),
    run: ci.run,
    clock: systemClock,
    tunnelProcess: () => ({ ...bundledTunnelProcess(parts.env), ends: parts.tunnelEnd })
  }
  return host
}
