/**
 * What main leaves for later steps: variables, outputs and the summary's tables, collected while
 * the step runs and handed to the host in one operation once the whole step has succeeded.
 */
import type { FinalWrites } from './host.js'
import type { Obtained } from './kinds/kind.js'
import type { CommonSettings } from './settings/types.js'
import { printable } from './text/printable.js'

/** The variables later steps read, with the prefix; one function so main, tests and docs agree. */
function environmentFor(obtained: Obtained, prefix: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(obtained.env).map(([name, value]) => [`${prefix}_${name}`, value])
  )
}

/**
 * What the kind obtained, as the writes main will hand over (the tunnel adds its URLs to them).
 * Host, port and user are deliberately not masked: they are not secret, and GitHub blanks
 * masked values in outputs that other jobs read.
 */
export function writesFor(obtained: Obtained, settings: CommonSettings): FinalWrites {
  return {
    variables: settings.exportEnv ? environmentFor(obtained, settings.envPrefix) : {},
    outputs: { ...obtained.outputs },
    summary: [
      {
        heading: 'Tunnel credentials',
        columns: ['Field', 'Value'],
        rows: obtained.summary.filter(([, value]) => value)
      }
    ]
  }
}

// Room for a long URL; a value longer than this is cut, in the summary as in the log.
const SUMMARY_VALUE_MAX = 500

/**
 * The summary's rows hold the service's answers and option values, and a host may print them as
 * log lines (the command-line host does): made printable here, once for both hosts.
 */
export function withPrintableSummary(writes: FinalWrites): FinalWrites {
  return {
    ...writes,
    summary: writes.summary.map(table => ({
      ...table,
      ...(table.lines && { lines: table.lines.map(line => printable(line, SUMMARY_VALUE_MAX)) }),
      // The first cell names the row (a field, an entry); the others hold values.
      rows: table.rows.map(row =>
        row.map((cell, index) => printable(cell, index === 0 ? 100 : SUMMARY_VALUE_MAX))
      )
    }))
  }
}
