/**
 * The request log's files as main saves them for post, and as post accepts them. Not secret, but
 * post reads saved state as untrusted input: it reads a tally only in the tunnel folder it has
 * already accepted, and names a HAR only at the path this host puts it, so state written by
 * someone else cannot make post read, or point a user to, a file elsewhere.
 */
import { lstatSync, readFileSync, rmSync } from 'node:fs'
import { basename } from 'node:path'
import type { SavedState } from '../../host.js'
import { tunnelFiles, type RequestLogFiles } from '../protocol.js'

const REQUEST_LOG = 'request-log'

/** What post needs of the request log: where the HAR is, and where the counts are. */
export type SavedRequestLog = Pick<RequestLogFiles, 'harPath' | 'tallyPath'>

/** The log of the tunnel in `tunnelDir`: its HAR where the host puts it, its work files in the folder. */
export function requestLogFilesFor(tunnelDir: string, harPath: string): RequestLogFiles {
  const { spoolPath, tallyPath } = tunnelFiles(tunnelDir)
  return { harPath, spoolPath, tallyPath }
}

export function saveRequestLog(state: SavedState, { harPath, tallyPath }: SavedRequestLog): void {
  state.save(REQUEST_LOG, JSON.stringify({ harPath, tallyPath }))
}

/** Forgets the saved log: its tunnel is gone, and a state that names it would outlive it. */
export function clearRequestLog(state: SavedState): void {
  state.save(REQUEST_LOG, '')
}

export type LoadedRequestLog =
  /** Main logged no requests (log-requests: false), or saved no tunnel. */
  | { type: 'none' }
  | { type: 'loaded'; files: SavedRequestLog }
  /** The state names files elsewhere than this tool puts them: nothing is read. */
  | { type: 'refused'; named: string }

/**
 * The saved request log, accepted only when its tally is the one in `tunnelDir` (a folder post
 * has accepted) and its HAR is where this host puts the log of that folder (`harPath`).
 */
export function loadRequestLog(
  state: SavedState,
  tunnelDir: string,
  harPath: string
): LoadedRequestLog {
  const raw = state.load(REQUEST_LOG)
  if (raw === '') return { type: 'none' }
  const expected = { harPath, tallyPath: tunnelFiles(tunnelDir).tallyPath }
  let saved: Partial<Record<keyof SavedRequestLog, unknown>> | null
  try {
    saved = JSON.parse(raw) as typeof saved
  } catch {
    saved = null
  }
  if (saved?.harPath === expected.harPath && saved.tallyPath === expected.tallyPath) {
    return { type: 'loaded', files: expected }
  }
  const named = typeof saved?.harPath === 'string' ? saved.harPath : raw
  return { type: 'refused', named }
}

/**
 * Main failed after the tunnel process may have started its log: a log named after the tunnel's
 * folder (the temp root's, requestLogInTempRoot) was made for that tunnel alone, and goes with
 * it. A log at a path the user chose (the CLI's --request-log) goes only when it is this tool's
 * and holds no request: then the tunnel process had already replaced an earlier run's log with
 * its own empty one, and keeping it would only leave a file the failed step wrote.
 */
export function discardRequestLog(tunnelDir: string, harPath: string): void {
  if (basename(harPath).includes(basename(tunnelDir)) || isEmptyOwnLog(harPath)) {
    rmSync(harPath, { force: true })
  }
}

// An empty log is a few hundred bytes; anything larger holds requests, or is not ours.
const EMPTY_LOG_MAX_BYTES = 4096

function isEmptyOwnLog(path: string): boolean {
  try {
    const stats = lstatSync(path)
    if (!stats.isFile() || stats.size > EMPTY_LOG_MAX_BYTES) return false
    const har = JSON.parse(readFileSync(path, 'utf8')) as {
      log?: { creator?: { name?: unknown }; entries?: unknown }
    }
    return (
      har.log?.creator?.name === 'tunnel-credentials' &&
      Array.isArray(har.log.entries) &&
      har.log.entries.length === 0
    )
  } catch {
    return false
  }
}
