import * as core from '@actions/core'
import { appendFileSync } from 'node:fs'
import type { SummaryTable } from '../core/host.js'
import { describeUnexpected } from '../core/text/describe-error.js'

/** Main's and post's summary: a courtesy, so one that cannot be written warns and goes on. */
export function appendSummaryTables(tables: SummaryTable[]): void {
  try {
    for (const table of tables) appendSummaryTable(table)
  } catch (error) {
    core.warning(`Could not write the job summary: ${describeUnexpected(error)}`)
  }
}

/**
 * Appends a heading, its sentences and its table to the job summary; text is escaped here. Built
 * with core.summary, but appended synchronously: core.summary.write() goes through fs.promises,
 * whose first call starts libuv's thread pool, a few milliseconds for one small append. Outside a
 * runner (a local run) there is no summary file, and nothing is written.
 */
export function appendSummaryTable({ heading, lines = [], columns, rows }: SummaryTable): void {
  const summaryFile = process.env.GITHUB_STEP_SUMMARY
  if (!summaryFile) return
  core.summary.addHeading(escapeHtml(heading), 3)
  for (const line of lines) core.summary.addRaw(`<p>${escapeHtml(line)}</p>`, true)
  if (columns.length > 0) {
    core.summary.addTable([
      columns.map(column => ({ data: escapeHtml(column), header: true })),
      ...rows.map(row => row.map(escapeHtml))
    ])
  }
  const html = core.summary.stringify()
  core.summary.emptyBuffer()
  appendFileSync(summaryFile, html)
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, character => `&#${character.charCodeAt(0)};`)
}
