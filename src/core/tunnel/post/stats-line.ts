/** What post says the tunnel did, in one line, from the keeper's record. */
import type { KeeperStats } from '../protocol.js'

/** What post knows besides the keeper's counters, once the tunnel process has stopped. */
export interface TunnelLineExtras {
  /** Requests the request log counted; absent with the log off. */
  requests?: number
  /** The timeline's parts (timeline-line.ts): how the tunnel fared first, then each app's outages. */
  timeline?: string[]
}

/**
 * The post step's one line about the tunnel, and the only one (the timeline is part of it, so no
 * second line can disagree about how long it was up). Connections and requests are counted apart
 * and said so: a browser sends many requests over one kept-alive connection.
 */
export function formatStatsLine(
  stats: KeeperStats,
  endedAtMs: number,
  { requests, timeline = [] }: TunnelLineExtras = {}
): string {
  const upMs = endedAtMs - Date.parse(String(stats.readyAt ?? stats.startedAt))
  const uptime = Number.isFinite(upMs) ? formatDuration(upMs) : 'for an unknown time'
  const [tunnel, ...apps] = timeline
  const connections =
    requests === undefined
      ? plural(stats.connections, 'connection')
      : `${plural(stats.connections, 'connection')} (${plural(requests, 'request')}: a connection can carry several)`
  return (
    `Tunnel: up ${uptime}${tunnel === undefined ? '' : `, ${tunnel}`}; ` +
    `${connections}, ${formatBytes(counted(stats.bytesIn))} in / ${formatBytes(counted(stats.bytesOut))} out, ` +
    `${plural(stats.reconnects, 'reconnect')}, ${plural(stats.localErrors, 'local connection error')}` +
    `${apps.map(app => `; ${app}`).join('')}.`
  )
}

/**
 * A count from the stats file, which anything in the job could write: a whole number, or 0, so
 * that no text in it reaches the log.
 */
function counted(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0
}

function plural(value: unknown, word: string): string {
  const count = counted(value)
  return `${count} ${word}${count === 1 ? '' : 's'}`
}

export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000))
  const h = Math.floor(seconds / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  const s = seconds % 60
  if (h > 0) return `${h} h ${m} min`
  if (m > 0) return `${m} min ${s} s`
  return `${s} s`
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}
