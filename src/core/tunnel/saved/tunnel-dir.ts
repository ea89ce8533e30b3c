/**
 * The tunnel's folder, removed once its process is gone, by main (a tunnel that never started)
 * and by post (after stopping it), on every host: a runner that keeps its temp root between jobs
 * (a Jenkins agent, a shell runner) would otherwise collect one folder per run. Only the folder
 * main made (the same device and inode as saved) is touched, and in it only the files the tunnel
 * process writes: anything else someone put there keeps the folder, and is reported.
 */
import { existsSync, readFileSync, rmdirSync, rmSync } from 'node:fs'
import { checkOwnDirectory } from '../../owned-dir.js'
import { describeUnexpected } from '../../text/describe-error.js'
import { tunnelFiles } from '../protocol.js'

/**
 * Removes the keeper's files and the folder; returns why it could not, or undefined when nothing
 * of it is left. `dirId` is absent only for a folder main made a moment ago and knows no id of.
 */
export function removeTunnelDir(dir: string, dirId: string | undefined): string | undefined {
  if (dirId !== undefined) {
    const check = checkOwnDirectory(dir, dirId)
    // Already gone: nothing is left to tidy.
    if (!check.ours) return check.missing ? undefined : check.reason
  }
  const { logPath, statsPath, stopPath, spoolPath, tallyPath } = tunnelFiles(dir)
  // The .tmp files are a record, spool or tally half-written when the keeper was killed.
  const written = [logPath, stopPath, ...[statsPath, spoolPath, tallyPath].flatMap(withTmp)]
  try {
    for (const file of written) {
      rmSync(file, { force: true })
    }
    rmdirSync(dir)
    return undefined
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    if ((error as NodeJS.ErrnoException).code === 'ENOTEMPTY') {
      return 'it holds files the tunnel process did not write, so they were left as they are'
    }
    return describeUnexpected(error)
  }
}

function withTmp(path: string): string[] {
  return [path, `${path}.tmp`]
}

/** The last line of the keeper's log, for a message that cannot point to a log about to go. */
export function lastLogLine(dir: string): string {
  const { logPath } = tunnelFiles(dir)
  try {
    if (!existsSync(logPath)) return 'none'
    return readFileSync(logPath, 'utf8').trim().split('\n').at(-1) || 'none'
  } catch {
    return 'none'
  }
}
