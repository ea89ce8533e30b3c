/**
 * The tunnel's timeline, as parts of post's one line about the tunnel (stats-line.ts): when the
 * tunnel was down and why, and which apps could not be reached, each with its longest outage. The
 * timeline comes from the keeper's stats file, which anything in the job could write: it is
 * checked field by field here, and every text from it is made printable and cut short.
 */
import { printable } from '../../text/printable.js'
import type { TunnelTimeline } from '../protocol.js'
import { formatDuration } from './stats-line.js'

/** Apps named one by one; the rest are counted. */
const APPS_NAMED = 5

/**
 * `['never down', 'app web unreachable 3 s in all (longest 2 s)']`: the tunnel first, then each
 * app. A period still open (the tunnel down, no `to`) counts until `endMs`, when the tunnel
 * process ended or was stopped.
 */
export function timelineParts(timeline: TunnelTimeline, endMs: number): string[] {
  return [tunnelPart(timeline.down, timeline.downOmitted ?? 0, endMs), ...appParts(timeline.apps)]
}

/** The timeline in a stats file, if it is one; a malformed one reads as none. */
export function readTimeline(value: unknown): TunnelTimeline | undefined {
  if (!isObject(value) || !Array.isArray(value.down) || !isObject(value.apps)) return undefined
  const down = value.down.filter(
    (period): period is TunnelTimeline['down'][number] =>
      isObject(period) &&
      typeof period.from === 'string' &&
      (period.to === undefined || typeof period.to === 'string') &&
      typeof period.reason === 'string'
  )
  const apps: [string, TunnelTimeline['apps'][string]][] = []
  for (const [name, app] of Object.entries(value.apps)) {
    if (!isObject(app) || !isDuration(app.unreachableMs) || !isDuration(app.longestMs)) continue
    const { unreachableMs, longestMs, firstForwardAt } = app
    apps.push([
      name,
      { unreachableMs, longestMs, ...(typeof firstForwardAt === 'string' && { firstForwardAt }) }
    ])
  }
  const omitted = isDuration(value.downOmitted) ? Math.floor(value.downOmitted) : 0
  // fromEntries: an entry named `__proto__` stays an entry, not the object's prototype.
  return { down, ...(omitted > 0 && { downOmitted: omitted }), apps: Object.fromEntries(apps) }
}

/** `omitted`: earlier periods the keeper no longer lists; counted, but not in the times. */
function tunnelPart(down: TunnelTimeline['down'], omitted: number, endMs: number): string {
  const periods = down
    .map(({ from, to, reason }) => ({
      ms: (to === undefined ? endMs : Date.parse(to)) - Date.parse(from),
      reason
    }))
    // A time no Date reads (or one running backwards) is not counted as an outage.
    .filter(period => Number.isFinite(period.ms) && period.ms >= 0)
  if (periods.length === 0) return omitted > 0 ? `down ${times(omitted)}` : 'never down'
  const totalMs = periods.reduce((total, period) => total + period.ms, 0)
  const longest = periods.reduce((most, period) => (period.ms > most.ms ? period : most))
  const reason = printable(longest.reason, 100)
  if (periods.length === 1 && omitted === 0) return `down once, ${duration(totalMs)} (${reason})`
  const inAll = omitted > 0 ? `in the latest ${periods.length}` : 'in all'
  return `down ${times(periods.length + omitted)}, ${duration(totalMs)} ${inAll} (longest ${duration(longest.ms)}: ${reason})`
}

function appParts(apps: TunnelTimeline['apps']): string[] {
  const unreachable = Object.entries(apps)
    .filter(([, app]) => app.unreachableMs > 0)
    .sort(([, a], [, b]) => b.unreachableMs - a.unreachableMs)
  const named = unreachable.slice(0, APPS_NAMED).map(([name, app]) => {
    const longest = Math.min(app.longestMs, app.unreachableMs)
    const time =
      longest >= app.unreachableMs
        ? duration(app.unreachableMs)
        : `${duration(app.unreachableMs)} in all (longest ${duration(longest)})`
    const never = app.firstForwardAt === undefined ? ', never reached' : ''
    return `app ${printable(name, 40)} unreachable ${time}${never}`
  })
  const more = unreachable.length - named.length
  return more > 0 ? [...named, `${more} more ${more === 1 ? 'app' : 'apps'} unreachable`] : named
}

/** `0.4 s` below a second (an app restart is often that short), else as the stats line says. */
export function duration(ms: number): string {
  return ms < 950 ? `${(ms / 1000).toFixed(1)} s` : formatDuration(ms)
}

function times(count: number): string {
  return count === 1 ? 'once' : count === 2 ? 'twice' : `${count} times`
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isDuration(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0
}
