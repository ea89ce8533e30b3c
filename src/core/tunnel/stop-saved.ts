/**
 * Post's side of the tunnel: stop the process main saved, and say what happened. Loaded only
 * when main saved a tunnel (through on-demand.ts).
 */
import type { Host } from '../host.js'
import { describeUnexpected } from '../text/describe-error.js'
import { printable, printablePath } from '../text/printable.js'
import { tunnelFiles } from './protocol.js'
import { formatStatsLine } from './stats-line.js'
import { loadTunnel } from './saved-tunnel.js'
import { stopTunnel, type StopOptions } from './stop.js'

/** Post: stop the tunnel main started, and say what it did. Never throws. */
export async function stopSavedTunnel(
  { state, tempRoot, tempRootName, log, clock }: Host,
  options: StopOptions = {}
): Promise<void> {
  const saved = loadTunnel(state, tempRoot)
  if (saved === undefined) return
  try {
    const result = await stopTunnel(saved, options)
    // The record's text comes from a file anyone in the job could write: cleaned and cut short.
    if (result.died) {
      log.warning(
        `The tunnel process ended during the job, at ${printable(result.died.at, 60)}: ${printable(result.died.reason, 300)}. Its log is ${printablePath(tunnelFiles(saved.dir).logPath)}.`
      )
    }
    if (result.recordMissing) {
      log.warning(
        `The tunnel process ${saved.pid} was stopped, but its directory ${printablePath(saved.dir)} could not be used (${result.recordMissing}), so its log and counters are lost. ` +
          `Check whether a step of the job deletes or replaces files in ${tempRootName}.`
      )
    }
    if (result.unproven) {
      log.warning(
        `The tunnel process ${saved.pid} was asked to stop but not made to: ${result.unproven}, so no signal was sent in case the pid now belongs to another process. ` +
          'If the tunnel URL still answers, end the process by hand; on a hosted runner the job end does it.'
      )
    }
    if (result.killed) {
      log.warning(
        `The tunnel process ${saved.pid} did not stop within 5 s of being asked, so it was killed.`
      )
    }
    if (result.stats) {
      const endedAt = result.stats.endedAt ? Date.parse(result.stats.endedAt) : clock.now()
      log.info(formatStatsLine(result.stats, endedAt))
    }
  } catch (error) {
    log.warning(`Could not stop the tunnel process ${saved.pid}: ${describeUnexpected(error)}`)
  }
}
