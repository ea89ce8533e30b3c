/**
 * Which tunnel directory post accepts: one that launchKeeper could have made, directly under the
 * temp root (its files: tunnelFiles in protocol.ts).
 */
import { tmpdir } from 'node:os'
import { isMadeUnder } from '../owned-dir.js'
import { TUNNEL_DIR_PREFIX } from './protocol.js'

/** RUNNER_TEMP, the job's scratch directory (the OS's outside a runner). */
export function tunnelRoot(): string {
  return process.env.RUNNER_TEMP || tmpdir()
}

/** True for a directory mkdtemp made for a tunnel directly under `root`. */
export function isTunnelDir(dir: string, root: string): boolean {
  return isMadeUnder(dir, root, TUNNEL_DIR_PREFIX)
}
