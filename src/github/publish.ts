import * as core from '@actions/core'
import { appendFileSync } from 'node:fs'
import { describeUnexpected } from '../core/text/describe-error.js'
import type { CommonSettings } from '../core/settings/inputs.js'
import type { Obtained, StepLog } from '../core/kinds/kind.js'

/**
 * The step's log for the kinds. Named functions, not the `core` namespace itself: a namespace
 * passed as a value keeps all of @actions/core in the bundle, @actions/exec's stub included.
 */
export const runnerLog: StepLog = {
  info: message => core.info(message),
  notice: message => core.notice(message),
  warning: message => core.warning(message)
}

/** Registers secrets with the runner, which then hides them in every later line of the log. */
export function maskSecrets(secrets: string[]): void {
  for (const secret of secrets) core.setSecret(secret)
}

/** The variables later steps read, with the prefix; one function so main, tests and docs agree. */
export function environmentFor(obtained: Obtained, prefix: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(obtained.env).map(([name, value]) => [`${prefix}_${name}`, value])
  )
}

/** What main writes for later steps: variables, outputs and the summary's tables. */
export interface RunnerWrites {
  exportVariable(name: string, value: string): void
  setOutput(name: string, value: string): void
  /** `what` is what the warning says could not be written, e.g. "the job summary". */
  summaryTable(
    what: string,
    heading: string,
    columns: [string, string],
    rows: [string, string][]
  ): void
}

/** Writes at once; for a caller that has nothing left that could fail. */
export const immediateWrites: RunnerWrites = {
  exportVariable: (name, value) => core.exportVariable(name, value),
  setOutput: (name, value) => core.setOutput(name, value),
  summaryTable: (what, heading, columns, rows) => {
    try {
      appendSummaryTable(heading, columns, rows)
    } catch (error) {
      // The credential is already out; a summary is a courtesy and must not fail the step.
      core.warning(`Could not write ${what}: ${describeUnexpected(error)}`)
    }
  }
}

/**
 * Writes held back until `flush`, in the order they were asked for. Main flushes only once the
 * whole step has succeeded (the credential, and the tunnel with `expose`): a step that fails
 * leaves later steps no variable, output or summary, not even a token it has just revoked.
 */
export interface HeldWrites extends RunnerWrites {
  flush(): void
}

export function holdWrites(target: RunnerWrites = immediateWrites): HeldWrites {
  const held: ((to: RunnerWrites) => void)[] = []
  return {
    exportVariable: (...args) => held.push(to => to.exportVariable(...args)),
    setOutput: (...args) => held.push(to => to.setOutput(...args)),
    summaryTable: (...args) => held.push(to => to.summaryTable(...args)),
    flush: () => {
      for (const write of held.splice(0)) write(target)
    }
  }
}

/**
 * Writes what the kind obtained (to `writes`) and returns the names of the exported variables.
 * Host, port and user are deliberately not masked: they are not secret, and the runner blanks
 * masked values in outputs that other jobs read.
 */
export function publishObtained(
  obtained: Obtained,
  settings: CommonSettings,
  writes: RunnerWrites = immediateWrites
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

/**
 * Appends a heading and a table to the job summary; cells are escaped here. Built with
 * core.summary, but appended synchronously: core.summary.write() goes through fs.promises, whose
 * first call starts libuv's thread pool, a few milliseconds for one small append. Outside a
 * runner (a local run) there is no summary file, and nothing is written.
 */
export function appendSummaryTable(
  heading: string,
  [first, second]: [string, string],
  rows: [string, string][]
): void {
  const summaryFile = process.env.GITHUB_STEP_SUMMARY
  if (!summaryFile) return
  const html = core.summary
    .addHeading(heading, 3)
    .addTable([
      [
        { data: first, header: true },
        { data: second, header: true }
      ],
      ...rows.map(([name, value]) => [escapeHtml(name), escapeHtml(value)])
    ])
    .stringify()
  core.summary.emptyBuffer()
  appendFileSync(summaryFile, html)
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, character => `&#${character.charCodeAt(0)};`)
}
