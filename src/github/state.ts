import * as core from '@actions/core'
import type { KindName } from '../core/settings/inputs.js'
import type { SavedCredential } from '../core/kinds/kind.js'
import { readSavedCredential } from '../core/kinds/registry.js'
import { isTunnelDir, tunnelRoot } from '../core/tunnel/files.js'

const POST_MARKER = 'isPost'
const CREDENTIAL = 'credential'

/** The runner gives the post step the state main saved; main sees none, which is how one bundle serves both. */
export function isPostStep(): boolean {
  return core.getState(POST_MARKER) === 'true'
}

/** Saved first thing in main, so that even a main that fails early leads to a post that does nothing. */
export function markMainStarted(): void {
  core.saveState(POST_MARKER, 'true')
}

/**
 * What main hands to post. Nothing secret: the post step reads the API key from its input again.
 * State can be written by others (an earlier step's save-state command, STATE_ variables), so
 * post trusts it only to name what to give back: never where to send the key, never which kind
 * of credential it is, never to skip a revoke.
 */
export function saveCredential(saved: SavedCredential): void {
  core.saveState(CREDENTIAL, JSON.stringify(saved))
}

/** Main revoked what it saved: nothing is left for post. */
export function clearCredential(): void {
  core.saveState(CREDENTIAL, '')
}

/** True when main saved a credential (and did not clear it), whatever its shape. */
export function hasSavedCredential(): boolean {
  return core.getState(CREDENTIAL) !== ''
}

/** The saved credential, read as the kind post's own inputs name. */
export function loadCredential(kind: KindName): SavedCredential | undefined {
  const raw = core.getState(CREDENTIAL)
  if (!raw) return undefined
  try {
    return readSavedCredential(kind, JSON.parse(raw))
  } catch {
    return undefined
  }
}

/**
 * Where post finds the tunnel process main started, and how it recognises it: nothing secret.
 * Saved right after the process starts, and again once it is ready.
 */
export interface SavedTunnel {
  pid: number
  /** `RUNNER_TEMP/tunnel-XXXXXX`, holding its log, stats and stop files; also ends its command line. */
  dir: string
  /** The directory's device and inode (owned-dir.ts): post writes in no other. */
  dirId?: string
  /** The process's start time as the OS gives it (identity.ts); absent where none can be read. */
  startTime?: string
  /** True once it was ready: a keeper gone before that left with main, and is no news. */
  started: boolean
}

const TUNNEL = 'tunnel'

export function saveTunnel(saved: SavedTunnel): void {
  core.saveState(TUNNEL, JSON.stringify(saved))
}

/** Main ended the process it started: nothing is left for post. */
export function clearTunnel(): void {
  core.saveState(TUNNEL, '')
}

/** The saved tunnel, if it names a positive pid and a tunnel directory under RUNNER_TEMP. */
export function loadTunnel(): SavedTunnel | undefined {
  const raw = core.getState(TUNNEL)
  if (!raw) return undefined
  try {
    const saved = JSON.parse(raw) as Partial<Record<keyof SavedTunnel, unknown>>
    const { pid, dir, dirId, startTime } = saved
    if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return undefined
    if (typeof dir !== 'string' || !isTunnelDir(dir, tunnelRoot())) return undefined
    // Compared, never printed or run: any string will do, but only a string.
    const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)
    return {
      pid,
      dir,
      ...(text(dirId) && { dirId: text(dirId) }),
      ...(text(startTime) && { startTime: text(startTime) }),
      started: saved.started === true
    }
  } catch {
    return undefined
  }
}
