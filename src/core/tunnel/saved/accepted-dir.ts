/**
 * Which tunnel directory post accepts: one that launchKeeper could have made, directly under the
 * host's temp root (its files: tunnelFiles in protocol.ts). Saved state names only that directory
 * and the pid, so state written by someone else cannot make post write a file elsewhere.
 */
import { dirname, resolve } from 'node:path'
import { isMadeUnder } from '../../owned-dir.js'
import { TUNNEL_DIR_PREFIX } from '../protocol.js'

/** True for a directory mkdtemp made for a tunnel directly under `root`. */
export function isTunnelDir(dir: string, root: string): boolean {
  return isMadeUnder(dir, root, TUNNEL_DIR_PREFIX)
}

/** True for a path whose last part mkdtemp could have made for a tunnel, wherever it is. */
export function isTunnelDirName(dir: string): boolean {
  return isMadeUnder(dir, dirname(resolve(dir)), TUNNEL_DIR_PREFIX)
}
