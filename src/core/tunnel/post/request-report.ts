/**
 * Post's report of what came through the tunnel, read once the tunnel process has stopped (and
 * written its last counts) and before its folder goes: the request counts and table from the
 * tally, and the timeline from its stats. Only files post has accepted are read: the tally in the
 * tunnel's own folder (saved-request-log.ts); the HAR itself is never read, only named.
 */
import type { SummaryTable } from '../../host.js'
import type { RequestReport } from '../../outcome.js'
import { printablePath } from '../../text/printable.js'
import type { KeeperStats } from '../protocol.js'
import { readTally } from '../request-log/tally.js'
import { requestCountsLine, requestSummary } from '../request-log/summary.js'
import type { SavedRequestLog } from '../saved/saved-request-log.js'
import { formatStatsLine } from './stats-line.js'
import { readTimeline, timelineParts } from './timeline-line.js'

export interface RequestReportRecord {
  /** The request log's files, when it was on and post accepted them. */
  requestLog?: SavedRequestLog
  /** The tunnel process's last stats. */
  stats?: KeeperStats
  /** When the tunnel ended (or was stopped), for a period still open in its timeline. */
  endMs: number
}

/** The report, or undefined when the tunnel left nothing to say (no log, no timeline). */
export function requestReport({
  requestLog,
  stats,
  endMs
}: RequestReportRecord): RequestReport | undefined {
  const summary: SummaryTable[] = []
  let countsLine: string | undefined
  let requests: number | undefined
  if (requestLog !== undefined) {
    const tally = readTally(requestLog.tallyPath)
    requests = tally?.total
    if (tally === undefined) {
      // Killed before it wrote any counts: the HAR holds what it could write.
      countsLine = `Requests: not counted, the tunnel process left no counts; log: ${printablePath(requestLog.harPath)}`
      summary.push({
        heading: 'Requests through the tunnel',
        lines: [countsLine],
        columns: [],
        rows: []
      })
    } else {
      summary.push(requestSummary(tally, requestLog.harPath))
      countsLine = requestCountsLine(tally, requestLog.harPath)
    }
  }
  const timeline = readTimeline(stats?.timeline)
  const line =
    stats === undefined
      ? undefined
      : formatStatsLine(stats, endMs, {
          ...(requests !== undefined && { requests }),
          ...(timeline !== undefined && { timeline: timelineParts(timeline, endMs) })
        })
  if (line !== undefined) summary.push({ heading: 'Tunnel', lines: [line], columns: [], rows: [] })
  if (summary.length === 0) return undefined
  return {
    summary,
    ...(countsLine !== undefined && { countsLine }),
    ...(line !== undefined && { tunnelLine: line })
  }
}
