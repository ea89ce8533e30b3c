/** What post says the tunnel did, in one line, from the keeper's record. */
import type { KeeperStats } from './protocol.js'

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
  const uptime = formatDuration(endedAtMs - Date.parse(stats.readyAt ?? stats.startedAt))
  const [tunnel, ...apps] = timeline
  const connections =
    requests === undefined
      ? plural(stats.connections, 'connection')
      : `${plural(stats.connections, 'connection')} (${plural(requests, 'request')}: a connection can carry several)`
  return (
    `Tunnel: up ${uptime}${tunnel === undefined ? '' : `, ${tunnel}`}; ` +
    `${connections}, ${formatBytes(stats.bytesIn)} in / ${formatBytes(stats.bytesOut)} out, ` +
    `${plural(stats.reconnects, 'reconnect')}, ${plural(stats.localErrors, 'local connection error')}` +
    `${apps.map(app => `; ${app}`).join('')}.`
  )
}

function plural(count: number, word: string): string {
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
