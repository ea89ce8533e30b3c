/**
 * What main leaves for later steps: variables, outputs and the summary's tables, collected while
 * the step runs and handed to the host in one operation once the whole step has succeeded.
 */
import type { FinalWrites } from './host.js'
import type { Obtained } from './kinds/kind.js'
import type { CommonSettings } from './settings/types.js'

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
