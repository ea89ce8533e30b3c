/** What post says the tunnel did, in one line, from the keeper's record. */
import type { KeeperStats } from './protocol.js'

/** The post step's one line about the tunnel. */
export function formatStatsLine(stats: KeeperStats, endedAtMs: number): string {
  const uptime = formatDuration(endedAtMs - Date.parse(stats.readyAt ?? stats.startedAt))
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`
  return (
    `Tunnel: up ${uptime}, ${plural(stats.reconnects, 'reconnect')}, ` +
    `${plural(stats.connections, 'connection')} served, ` +
    `${formatBytes(stats.bytesIn)} in / ${formatBytes(stats.bytesOut)} out, ` +
    `${plural(stats.localErrors, 'local connection error')}.`
  )
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
