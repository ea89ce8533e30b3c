/**
 * Post's side of the tunnel process: stop it whenever it runs, and never signal anything else.
 * The process is found by what main saved (pid, start time, directory), not by the files in its
 * directory: a later step may have emptied RUNNER_TEMP, and a keeper killed with SIGKILL records
 * no end while its pid goes to another process. A pid is signalled only while identity.ts proves
 * it is still the keeper; the directory is written to only while owned-dir.ts proves it is still
 * the one main made.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { checkOwnDirectory, type DirectoryCheck } from '../../owned-dir.js'
import type { SavedTunnel } from '../saved/saved-tunnel.js'
import { isKeeper, lookUpProcess, type LookUp } from '../saved/process-identity.js'
import { STOP_GRACE_MS, tunnelFiles, type KeeperStats } from '../protocol.js'
import { lastLogLine } from '../saved/tunnel-dir.js'

export interface StopResult {
  /** Stopped now; gone before (by itself, or with main); or maybe still running (`unproven`). */
  state: 'stopped' | 'gone' | 'alive'
  stats?: KeeperStats
  /** True when it had to be killed after not leaving within the grace period. */
  killed: boolean
  /** Set when the keeper was gone before post: when and why, as far as known. */
  died?: { at: string; reason: string }
  /** Why its directory could not be used: it was stopped by signal, its counters are lost. */
  recordMissing?: string
  /** Why post could not prove the pid is the keeper, so sent it no signal. */
  unproven?: string
  /**
   * Why the folder must stay: its own process is not proven gone, or the folder is not proven to
   * be the one that process used. Saved state alone is no proof: any step could have written it.
   */
  folderKept?: string
}

export interface StopOptions {
  graceMs?: number
  now?: () => number
  sleep?: (ms: number) => Promise<void>
  lookUp?: LookUp
  signal?: (pid: number, name: 'SIGTERM' | 'SIGKILL') => void
  /**
   * Set when the folder must not be used whatever it is: one outside this step's temp root
   * (saved-tunnel.ts). The process is then stopped by its proven identity alone.
   */
  dirRefused?: string
}

/** Asks the keeper to leave (stop file and SIGTERM), waits up to 5 s, then kills it. */
export async function stopTunnel(
  saved: SavedTunnel,
  options: StopOptions = {}
): Promise<StopResult> {
  const {
    graceMs = STOP_GRACE_MS,
    now = Date.now,
    sleep = (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms)),
    lookUp = lookUpProcess,
    signal = (pid, name) => process.kill(pid, name)
  } = options
  const files = tunnelFiles(saved.dir)
  const dir: DirectoryCheck =
    options.dirRefused === undefined
      ? checkOwnDirectory(saved.dir, saved.dirId)
      : { ours: false, missing: false, reason: options.dirRefused }
  const readRecord = () => (dir.ours ? readStats(files.statsPath, saved.pid) : undefined)
  const before = readRecord()
  const look = lookUp(saved.pid)
  // The keeper's own record names its pid: with no such process left, the folder was its. (A
  // folder that is not ours is refused by tunnel-dir.ts, and one that is gone needs nothing.)
  const unclaimed =
    dir.ours && before === undefined
      ? `it holds no record of the tunnel process ${saved.pid}, so nothing proves it was that process's folder`
      : undefined
  const gone = (folderKept = unclaimed): StopResult => ({
    state: 'gone',
    ...(before && { stats: before }),
    killed: false,
    // A keeper main never configured left with main (keeper/main.ts): nothing to report.
    ...(saved.started && {
      died: describeEnd(before, dir.ours && folderKept === undefined ? saved.dir : undefined)
    }),
    ...(folderKept !== undefined && { folderKept })
  })
  if (look.state === 'gone') return gone()
  if (look.state === 'unknown' || saved.startTime === undefined) {
    const reason = look.state === 'unknown' ? look.reason : 'main could not read its start time'
    return askWithoutProof(reason)
  }
  const startTime = saved.startTime
  const isOurs = () => isKeeper(lookUp(saved.pid), startTime, saved.dir)
  // Another process under the keeper's pid: the keeper ended and its pid was given again, or the
  // state names a process that was never the keeper. Either way that process may use the folder.
  if (!isKeeper(look, startTime, saved.dir)) {
    return gone(
      `the process ${saved.pid} that the saved state names is running and is not the tunnel process, so nothing proves the tunnel process is gone or that the folder was its`
    )
  }

  if (dir.ours) askByFile(files.stopPath)
  send(saved.pid, 'SIGTERM')
  const deadline = now() + graceMs
  while (isOurs() && now() < deadline) await sleep(100)
  // Checked again just before: the pid is still the keeper's, not one given again since.
  const killed = isOurs() && send(saved.pid, 'SIGKILL')
  // A killed process takes a moment to go; its folder is removed only once it has.
  const killDeadline = now() + 1_000
  while (killed && isOurs() && now() < killDeadline) await sleep(50)
  const after = readRecord()
  return {
    // SIGKILL cannot be refused: what is left of it writes nothing more in its folder.
    state: 'stopped',
    ...(after && { stats: after }),
    killed,
    // Ended on its own just before post came (an end post asks for records no endedAt).
    ...(after?.endedAt !== undefined && { died: describeEnd(after, saved.dir) }),
    ...(!dir.ours && { recordMissing: dir.reason }),
    // Its command line named the folder; the folder goes once the process has.
    ...(isOurs() && { folderKept: 'the tunnel process still ran a second after it was killed' })
  }

  function send(pid: number, name: 'SIGTERM' | 'SIGKILL'): boolean {
    try {
      signal(pid, name)
      return true
    } catch {
      // Gone in the meantime.
      return false
    }
  }

  /** No proof (Windows): the stop file alone, and its record to see that it was heeded. */
  async function askWithoutProof(why: string): Promise<StopResult> {
    if (before?.endedAt !== undefined) return gone()
    // Never configured, it writes no record to wait for; it left with main in all likelihood.
    if (!saved.started) {
      if (dir.ours) askByFile(files.stopPath)
      return {
        state: 'gone',
        killed: false,
        folderKept: `${why}, so nothing proves the tunnel process ${saved.pid} is gone`
      }
    }
    if (!dir.ours) {
      return { state: 'alive', killed: false, unproven: `${why}, and its directory ${dir.reason}` }
    }
    askByFile(files.stopPath)
    const deadline = now() + graceMs
    const heeded = () => ['stopped', 'ended'].includes(readRecord()?.state ?? '')
    while (!heeded() && now() < deadline) await sleep(100)
    const after = readRecord()
    return {
      state: heeded() ? 'stopped' : 'alive',
      ...(after && { stats: after }),
      killed: false,
      ...(!heeded() && { unproven: `${why}, and it did not record a stop` })
    }
  }
}

/** `wx`: a stop file that is there already asked; a link planted in its place is not written through. */
function askByFile(stopPath: string): void {
  try {
    writeFileSync(stopPath, 'stop\n', { flag: 'wx' })
  } catch {
    // Already asked, or the directory cannot be written: SIGTERM asks as well.
  }
}

function describeEnd(
  record: KeeperStats | undefined,
  /** The keeper's folder, when it is the one main made. */
  dir: string | undefined
): { at: string; reason: string } {
  const lastLine = dir ? lastLogLine(dir) : 'none'
  if (record?.endedAt !== undefined) {
    return { at: record.endedAt, reason: record.endReason ?? 'unknown' }
  }
  if (record !== undefined) {
    return {
      at: `some time after ${record.updatedAt}`,
      reason: `it was ended from outside (its last log line: ${lastLine})`
    }
  }
  return { at: 'an unknown time', reason: `it left no record (its last log line: ${lastLine})` }
}

/** The keeper's counters, when the file is there and names this pid. */
function readStats(path: string, pid: number): KeeperStats | undefined {
  try {
    const stats = JSON.parse(readFileSync(path, 'utf8')) as KeeperStats
    return stats.pid === pid ? stats : undefined
  } catch {
    return undefined
  }
}

/** True while the pid exists: for tests and callers that hold the process itself, not a pid from state. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
