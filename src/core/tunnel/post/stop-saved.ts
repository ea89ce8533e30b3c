/**
 * Post's side of the tunnel: stop the process main saved, remove its folder once it is gone, and
 * say what happened. Loaded only when main saved a tunnel (through on-demand.ts).
 */
import type { Host } from '../../host.js'
import type { RequestReport, TunnelOutcome } from '../../outcome.js'
import { describeUnexpected } from '../../text/describe-error.js'
import { printable, printablePath } from '../../text/printable.js'
import { formatStatsLine } from './stats-line.js'
import { loadRequestLog } from '../saved/saved-request-log.js'
import type { LoadedTunnel } from '../saved/saved-tunnel.js'
import { stopTunnel, type StopOptions, type StopResult } from './stop.js'
import { requestReport } from './request-report.js'
import { removeTunnelDir } from '../saved/tunnel-dir.js'

type PostHost = Pick<Host, 'tempRootName' | 'log' | 'clock' | 'state' | 'requestLogPath'>

export interface StoppedTunnel {
  outcome: TunnelOutcome
  /** The folder, when it could not be removed (named in a warning). */
  untidied?: string
  /** What came through it, from the files it left in its folder. */
  requests?: RequestReport
}

/** Post: stop the tunnel main started, tidy its folder, and say what it did. Never throws. */
export async function stopSavedTunnel(
  { saved, dirRefused }: LoadedTunnel,
  host: PostHost,
  options: StopOptions = {}
): Promise<StoppedTunnel> {
  const { tempRootName, log, clock } = host
  let result: StopResult
  try {
    result = await stopTunnel(saved, { ...options, ...(dirRefused && { dirRefused }) })
  } catch (error) {
    log.warning(
      `Could not stop the tunnel process ${saved.pid}: ${describeUnexpected(error)}. If the tunnel URL still answers, end the process by hand.`
    )
    return { outcome: { status: 'alive' } }
  }
  report(result, saved, dirRefused !== undefined, { tempRootName, log })
  if (dirRefused !== undefined) {
    log.warning(
      `The tunnel's folder ${printablePath(saved.dir)} was left as it is: ${dirRefused} (${tempRootName}), so nothing in it was read or removed. ` +
        `Check whether the runner gives each step its own ${tempRootName}; delete the folder by hand if it stays.`
    )
    logStatsLine(result, clock.now(), log)
    return { outcome: { status: result.state }, untidied: saved.dir }
  }
  // Only once its process is gone: a folder in use is not pulled from under it.
  if (result.state === 'alive') {
    logStatsLine(result, clock.now(), log)
    return { outcome: { status: 'alive' } }
  }
  if (result.folderKept !== undefined) {
    log.warning(
      `The tunnel's folder ${printablePath(saved.dir)} was left as it is, and nothing in it was read or removed: ${printable(result.folderKept, 300)}. ` +
        'Delete it by hand once no tunnel process uses it.'
    )
    logStatsLine(result, clock.now(), log)
    return { outcome: { status: result.state }, untidied: saved.dir }
  }
  // Read before the folder goes: the process has ended, so its counts are final.
  const requests =
    result.recordMissing === undefined ? readRequestReport(result, saved.dir, host) : undefined
  const line = requests?.tunnelLine ?? statsLineOf(result, clock.now())
  if (line !== undefined) log.info(line)
  const stopped = { outcome: { status: result.state }, ...(requests && { requests }) }
  const refused = removeTunnelDir(saved.dir, saved.dirId)
  if (refused === undefined) return stopped
  log.warning(
    `The tunnel's folder ${printablePath(saved.dir)} was not removed: ${printable(refused, 200)}. Nothing runs in it; delete it by hand.`
  )
  return { ...stopped, untidied: saved.dir }
}

/** The request counts and the timeline, from the folder post has accepted as the tunnel's. */
function readRequestReport(
  result: StopResult,
  dir: string,
  { state, log, clock, requestLogPath }: PostHost
): RequestReport | undefined {
  const requestLog = loadRequestLog(state, dir, requestLogPath(dir))
  if (requestLog.type === 'refused') {
    log.warning(
      `The saved state names the request log ${printablePath(requestLog.named)}, which is not where this tool writes it, so the request counts were not read. ` +
        'If it was provisioned with other options, revoke with those; otherwise something other than this tool wrote the state.'
    )
  }
  return requestReport({
    ...(requestLog.type === 'loaded' && { requestLog: requestLog.files }),
    ...(result.stats && { stats: result.stats }),
    endMs: endOf(result.stats, clock.now())
  })
}

/** When the tunnel ended: as it recorded, or now, when post stopped it. */
function endOf(stats: StopResult['stats'], nowMs: number): number {
  const endedAt = stats?.endedAt === undefined ? NaN : Date.parse(stats.endedAt)
  return Number.isNaN(endedAt) ? nowMs : endedAt
}

function report(
  result: StopResult,
  { pid, dir }: LoadedTunnel['saved'],
  dirRefused: boolean,
  { tempRootName, log }: Pick<Host, 'tempRootName' | 'log'>
): void {
  // The record's text comes from a file anyone in the job could write: cleaned and cut short.
  if (result.died) {
    log.warning(
      `The tunnel process ended during the job, at ${printable(result.died.at, 60)}: ${printable(result.died.reason, 300)}.`
    )
  }
  // A refused folder has its own warning: it was never meant to be used.
  if (result.recordMissing && !dirRefused) {
    log.warning(
      `The tunnel process ${pid} was stopped, but its directory ${printablePath(dir)} could not be used (${result.recordMissing}), so its log and counters are lost. ` +
        `Check whether a step of the job deletes or replaces files in ${tempRootName}.`
    )
  }
  if (result.unproven) {
    log.warning(
      `The tunnel process ${pid} was asked to stop but not made to: ${result.unproven}, so no signal was sent in case the pid now belongs to another process. ` +
        'If the tunnel URL still answers, end the process by hand; on a hosted runner the job end does it.'
    )
  }
  if (result.killed) {
    log.warning(
      `The tunnel process ${pid} did not stop within 5 s of being asked, so it was killed.`
    )
  }
}

/** The tunnel's line from its counters alone, where the rest of its record was not read. */
function statsLineOf(result: StopResult, nowMs: number): string | undefined {
  return result.stats && formatStatsLine(result.stats, endOf(result.stats, nowMs))
}

function logStatsLine(result: StopResult, nowMs: number, log: Host['log']): void {
  const line = statsLineOf(result, nowMs)
  if (line !== undefined) log.info(line)
}
