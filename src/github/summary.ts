import * as core from '@actions/core'
import { appendFileSync } from 'node:fs'

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
