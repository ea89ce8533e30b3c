/**
 * What main leaves for later steps: variables, outputs and the summary's tables, held back until
 * the whole step has succeeded, then written through the host.
 */
import type { StepLog, StepWrites } from './host.js'
import type { Obtained } from './kinds/kind.js'
import { describeUnexpected } from './text/describe-error.js'
import { printable } from './text/printable.js'
import type { CommonSettings } from './settings/types.js'

/**
 * Writes held back until `flush`, in the order they were asked for. Main flushes only once the
 * whole step has succeeded (the credential, and the tunnel with `expose`): a step that fails
 * leaves later steps no variable, output or summary, not even a token it has just revoked.
 */
export interface HeldWrites {
  exportVariable(name: string, value: string): void
  setOutput(name: string, value: string): void
  /** `what` is what the warning says could not be written, e.g. "the job summary". */
  summaryTable(
    what: string,
    heading: string,
    columns: [string, string],
    rows: [string, string][]
  ): void
  flush(): void
}

export function holdWrites(target: StepWrites, log: StepLog): HeldWrites {
  const held: (() => void)[] = []
  return {
    exportVariable: (name, value) => held.push(() => target.exportVariable(name, value)),
    setOutput: (name, value) => held.push(() => target.setOutput(name, value)),
    summaryTable: (what, heading, columns, rows) =>
      held.push(() => {
        try {
          target.summaryTable(heading, columns, printableRows(rows))
        } catch (error) {
          // The credential is already out; a summary is a courtesy and must not fail the step.
          log.warning(`Could not write ${what}: ${describeUnexpected(error)}`)
        }
      }),
    flush: () => {
      for (const write of held.splice(0)) write()
    }
  }
}

/**
 * The rows hold the service's answers and option values, and a host may print them as log lines
 * (the command-line host does): made printable here, once for both hosts.
 */
function printableRows(rows: [string, string][]): [string, string][] {
  return rows.map(([field, value]) => [printable(field, 100), printable(value, SUMMARY_VALUE_MAX)])
}

// Room for a long URL; a value longer than this is cut, in the summary as in the log.
const SUMMARY_VALUE_MAX = 500

/** The variables later steps read, with the prefix; one function so main, tests and docs agree. */
function environmentFor(obtained: Obtained, prefix: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(obtained.env).map(([name, value]) => [`${prefix}_${name}`, value])
  )
}

/**
 * Writes what the kind obtained (to `writes`) and returns the names of the exported variables.
 * Host, port and user are deliberately not masked: they are not secret, and GitHub blanks
 * masked values in outputs that other jobs read.
 */
export function publishObtained(
  obtained: Obtained,
  settings: CommonSettings,
  writes: HeldWrites
): string[] {
  const environment = settings.exportEnv ? environmentFor(obtained, settings.envPrefix) : {}
  for (const [name, value] of Object.entries(environment)) writes.exportVariable(name, value)
  for (const [name, value] of Object.entries(obtained.outputs)) writes.setOutput(name, value)
  writes.summaryTable(
    'the job summary',
    'Tunnel credentials',
    ['Field', 'Value'],
    obtained.summary.filter(([, value]) => value)
  )
  return Object.keys(environment)
}
