/**
 * What the job summary and the CLI's `revoke` say about the requests through the tunnel, as plain
 * structure (a heading, lines, columns, rows) that each host turns into its own table. Every
 * cell is outside text made printable and cut short, so that a summary stays far below GitHub's
 * 1 MiB limit and a log line obeys no reader's markers.
 */
import { printable, printablePath } from '../../text/printable.js'
import { STATUS_CLASSES, type TallyData, type TallyRow } from './tally.js'
import type { RequestOutcome } from './record.js'

/** Rows a summary shows at most. */
export const SUMMARY_MAX_ROWS = 50
/** Rows kept for the latest requests when there are failures enough to fill the table. */
const LATEST_RESERVED = 10

export interface RequestSummary {
  heading: string
  /** Sentences before the table: counts, which rows are shown, the log's path. */
  lines: string[]
  /** Empty, with no rows, when no request came: the lines say so in one. */
  columns: string[]
  rows: string[][]
}

export const SUMMARY_COLUMNS = [
  'Time (UTC)',
  'Entry',
  // Behind an edge proxy the channel comes from the proxy: the client is what the edge reported.
  'Client (edge-reported)',
  'Channel from',
  'Method',
  'Path',
  'Status',
  'Duration',
  'Bytes in',
  'Bytes out',
  'Tunnel'
]

const WHAT_THE_TUNNEL_DID: Record<RequestOutcome, string> = {
  forwarded: 'forwarded',
  refused: 'refused by the gate',
  admitted: 'let in by the gate: cookie set',
  unreachable: 'app unreachable',
  'not-http': 'not HTTP, piped',
  proof: 'answered the URL proof'
}

const CHALLENGE_TEXT = 'challenged by the gate, then admitted'

/** The summary of the requests the tally counted; `logPath` is the HAR file. */
export function requestSummary(
  tally: TallyData,
  logPath: string,
  maxRows = SUMMARY_MAX_ROWS
): RequestSummary {
  const heading = 'Requests through the tunnel'
  const log = printablePath(logPath)
  if (tally.total === 0) {
    return {
      heading,
      lines: [`No request came through the tunnel; the request log is ${log}.`],
      columns: [],
      rows: []
    }
  }
  const latestShown = Math.min(tally.latest.length, LATEST_RESERVED)
  const failures = tally.failures.slice(-Math.max(0, maxRows - latestShown))
  const latest = tally.latest.slice(-Math.max(0, maxRows - failures.length)).slice(0, maxRows)
  const shown = failures.length + latest.length
  const lines = [
    `${tally.total} ${tally.total === 1 ? 'request' : 'requests'}: ${classCounts(tally)}.`,
    `By entry: ${entryCounts(tally)}.`,
    ...((tally.byClass.challenged ?? 0) > 0
      ? [
          'Challenged: the gate answered 401 and the client sent the same request again with the secret within 10 s, as browsers do; not a failure.'
        ]
      : []),
    shown < tally.total
      ? `Showing ${shown}: the latest failures first, then the latest others.`
      : 'Failures first, then the others.',
    `The request log (HAR) is ${log}.`
  ]
  return {
    heading,
    lines,
    columns: [...SUMMARY_COLUMNS],
    rows: [...failures, ...latest].map(cellsOf)
  }
}

/**
 * One line for the CLI's revoke: `Requests: 12 (2xx 10, 4xx 1, refused 1, challenged 3); log:
 * PATH`. A challenge is a 401 the client answered with the secret (challenge.ts), not a refusal.
 */
export function requestCountsLine(tally: TallyData, logPath: string): string {
  const counts = tally.total === 0 ? '0' : `${tally.total} (${classCounts(tally)})`
  return `Requests: ${counts}; log: ${printablePath(logPath)}`
}

function classCounts(tally: TallyData): string {
  return STATUS_CLASSES.filter(statusClass => (tally.byClass[statusClass] ?? 0) > 0)
    .map(statusClass => `${statusClass} ${tally.byClass[statusClass]}`)
    .join(', ')
}

function entryCounts(tally: TallyData): string {
  return Object.entries(tally.byEntry)
    .map(([entry, count]) => `${printable(entry, 40)} ${count}`)
    .join(', ')
}

function cellsOf(row: TallyRow): string[] {
  return [
    timeOfDay(row.startedAt),
    printable(row.entry, 40),
    printable(row.edgeReportedClient ?? '', 60) || '-',
    printable(row.client, 60) || '-',
    printable(row.method, 16) || '-',
    printable(row.target, 120) || '-',
    row.status === undefined ? '-' : String(row.status),
    `${Math.round(row.durationMs)} ms`,
    String(row.bytesIn),
    String(row.bytesOut),
    row.challenge === true
      ? CHALLENGE_TEXT
      : // A tally file is read back from disk: an unknown outcome is shown, not looked up.
        Object.hasOwn(WHAT_THE_TUNNEL_DID, row.outcome)
        ? WHAT_THE_TUNNEL_DID[row.outcome]
        : printable(row.outcome, 20)
  ]
}

/** `HH:MM:SS.mmm` in UTC; a time no Date can hold (a tally file edited by hand) shows as `-`. */
function timeOfDay(epochMs: number): string {
  const time = new Date(epochMs)
  return Number.isNaN(time.getTime()) ? '-' : time.toISOString().slice(11, 23)
}
