/**
 * Where the tunnel process keeps its files: one fresh directory `tunnel-XXXXXX` directly under
 * the host's temp root (RUNNER_TEMP on GitHub). Saved state names only that directory and the
 * pid, and post accepts a directory only of this shape, so state written by someone else cannot
 * make post write a file elsewhere.
 */
import { basename, dirname, join, resolve } from 'node:path'

export const TUNNEL_DIR_PREFIX = 'tunnel-'

export interface TunnelFiles {
  /** The keeper's own log (and its stdout and stderr). */
  logPath: string
  /** Its counters, rewritten whole on change; see KeeperStats. */
  statsPath: string
  /** Post creates it to ask the keeper to stop. */
  stopPath: string
}

export function tunnelFiles(dir: string): TunnelFiles {
  return {
    logPath: join(dir, 'tunnel.log'),
    statsPath: join(dir, 'stats.json'),
    stopPath: join(dir, 'stop')
  }
}

/** True for a directory mkdtemp made for a tunnel directly under `root`. */
export function isTunnelDir(dir: string, root: string): boolean {
  return (
    resolve(dirname(dir)) === resolve(root) &&
    new RegExp(`^${TUNNEL_DIR_PREFIX}[A-Za-z0-9]{6}$`).test(basename(dir))
  )
}
