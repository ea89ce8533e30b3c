/**
 * When a tunnel process ends by itself, on hosts where no runner ends leftover processes (the
 * host's KeeperLaunch.ends). Main turns the host's wish into one absolute time before it
 * starts the keeper, so the keeper needs no option parsing and its end does not drift with its
 * own start.
 */
import { DEFAULT_TUNNEL_MAX_MINUTES, type TunnelEnd } from '../../host.js'
import type { KeeperConfig } from '../protocol.js'

const MINUTE_MS = 60_000

/** What the keeper is told about its own end; nothing for a host that stops it itself. */
export type KeeperEnd = Pick<KeeperConfig, 'endAt' | 'watchPid'>

/**
 * The keeper's end time: `maxMinutes` after `startMs`, but never after the credential's expiry;
 * without `maxMinutes`, the expiry, or DEFAULT_TUNNEL_MAX_MINUTES for a credential that has none.
 * An expiry that is not a time counts as none.
 */
export function keeperEnd(
  ends: TunnelEnd | undefined,
  startMs: number,
  expiresAt: string | undefined
): KeeperEnd {
  if (ends === undefined) return {}
  const expiry = expiresAt ? Date.parse(expiresAt) : NaN
  const expiryMs = Number.isFinite(expiry) ? expiry : Infinity
  const longest =
    ends.maxMinutes !== undefined
      ? startMs + ends.maxMinutes * MINUTE_MS
      : expiryMs === Infinity
        ? startMs + DEFAULT_TUNNEL_MAX_MINUTES * MINUTE_MS
        : Infinity
  return {
    endAt: new Date(Math.min(longest, expiryMs)).toISOString(),
    ...(ends.watchPid !== undefined && { watchPid: ends.watchPid })
  }
}
