/**
 * The tunnel's directory, removed once its process is gone. On GitHub the runner empties its temp
 * folder after the job; a Jenkins agent or a shell runner keeps its own, and would collect one
 * directory per run. Only the directory provision made (the same device and inode as saved) is
 * touched, and in it only the files the tunnel process writes.
 */
import { readdirSync, rmdirSync, rmSync } from 'node:fs'
import type { SavedState } from '../core/host.js'
import { checkOwnDirectory } from '../core/owned-dir.js'
import { lookUpProcess } from '../core/tunnel/identity.js'
import { tunnelFiles } from '../core/tunnel/protocol.js'
import { loadTunnel } from '../core/tunnel/saved-tunnel.js'

export interface SavedTunnelDir {
  pid: number
  dir: string
  dirId?: string
}

/** What to remove later, read before revoke runs (which may clear the record). */
export function savedTunnelDir(state: SavedState, workDir: string): SavedTunnelDir | undefined {
  const saved = loadTunnel(state, workDir)
  return saved && { pid: saved.pid, dir: saved.dir, ...(saved.dirId && { dirId: saved.dirId }) }
}

/** Removes the directory if its process is gone and it is still ours; says whether it did. */
export function removeTunnelDir(saved: SavedTunnelDir): boolean {
  if (lookUpProcess(saved.pid).state !== 'gone') return false
  if (!checkOwnDirectory(saved.dir, saved.dirId).ours) return false
  for (const path of Object.values(tunnelFiles(saved.dir))) rmSync(path, { force: true })
  // Anything else in it was put there by someone else: then the directory stays, and so does that.
  if (readdirSync(saved.dir).length > 0) return false
  rmdirSync(saved.dir)
  return true
}
