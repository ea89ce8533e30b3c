/**
 * Where post finds the tunnel process main started, and how it recognises it, through the host's
 * saved state: nothing secret. Saved right after the process starts, and again once it is ready.
 */
import { isAbsolute } from 'node:path'
import type { SavedState } from '../../host.js'
import { isTunnelDir, isTunnelDirName } from './accepted-dir.js'

export interface SavedTunnel {
  pid: number
  /** `<temp root>/tunnel-XXXXXX`, holding its log, stats and stop files; also ends its command line. */
  dir: string
  /** The directory's device and inode (owned-dir.ts): post writes in no other. */
  dirId?: string
  /** The process's start time as the OS gives it (identity.ts); absent where none can be read. */
  startTime?: string
  /** True once it was ready: a keeper gone before that left with main, and is no news. */
  started: boolean
}

const TUNNEL = 'tunnel'

export function saveTunnel(state: SavedState, saved: SavedTunnel): void {
  state.save(TUNNEL, JSON.stringify(saved))
}

/** Main ended the process it started: nothing is left for post. */
export function clearTunnel(state: SavedState): void {
  state.save(TUNNEL, '')
}

/** A saved tunnel as post reads it: what main saved, and whether post may use its folder. */
export interface LoadedTunnel {
  saved: SavedTunnel
  /**
   * Why post must not touch the folder: it is not under this step's temp root (a runner that
   * gives each step its own). Its process is still stopped once its identity is proven
   * (identity.ts needs no folder), but no file in that folder is read, written or removed.
   */
  dirRefused?: string
}

/**
 * The saved tunnel, if it names a positive pid and a folder launchKeeper could have made: under
 * the temp root, or (with dirRefused) of that shape elsewhere. Anything else reads as nothing.
 */
export function loadTunnel(state: SavedState, tempRoot: string): LoadedTunnel | undefined {
  const raw = state.load(TUNNEL)
  if (!raw) return undefined
  try {
    const saved = JSON.parse(raw) as Partial<Record<keyof SavedTunnel, unknown>>
    const { pid, dir, dirId, startTime } = saved
    if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return undefined
    if (typeof dir !== 'string' || !isAbsolute(dir) || !isTunnelDirName(dir)) return undefined
    // Compared, never printed or run: any string will do, but only a string.
    const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)
    const tunnel: SavedTunnel = {
      pid,
      dir,
      ...(text(dirId) && { dirId: text(dirId) }),
      ...(text(startTime) && { startTime: text(startTime) }),
      started: saved.started === true
    }
    if (isTunnelDir(dir, tempRoot)) return { saved: tunnel }
    return { saved: tunnel, dirRefused: "it is not under this step's temp folder" }
  } catch {
    return undefined
  }
}
