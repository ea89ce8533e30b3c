/**
 * Proof that a pid is still the tunnel process main started, before post signals it. A pid alone
 * proves nothing: the OS gives it to another process once the keeper is gone (a keeper killed with
 * SIGKILL never records its end), and saved state can be written by earlier steps. Main records
 * the process's start time right after spawning it, and the keeper's command line ends with its
 * own tunnel directory, a path unique to this launch and not secret; post signals a pid only when
 * both still match. Neither depends on the tunnel directory, which a later step may have emptied.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

/** What the OS says about a pid now. */
export type ProcessLook =
  /** Not running: no such process, or one that exited and waits to be reaped (a zombie). */
  | { state: 'gone' }
  | { state: 'running'; startTime: string; args: string }
  /** This OS offers no way to read a process's start time and command line (Windows). */
  | { state: 'unknown'; reason: string }

export type LookUp = (pid: number) => ProcessLook

/** Reads /proc on Linux, `ps` on other Unix systems; Windows gives no proof. */
export function lookUpProcess(pid: number): ProcessLook {
  if (process.platform === 'linux') return lookUpInProc(pid)
  if (process.platform === 'win32') {
    return { state: 'unknown', reason: 'Windows offers no start time to check the pid against' }
  }
  return lookUpWithPs(pid)
}

/** /proc/<pid>/stat, field 22 (starttime, in clock ticks since boot), and /proc/<pid>/cmdline. */
export function lookUpInProc(pid: number, root = '/proc'): ProcessLook {
  let stat: string
  let cmdline: string
  try {
    stat = readFileSync(`${root}/${pid}/stat`, 'utf8')
    cmdline = readFileSync(`${root}/${pid}/cmdline`, 'utf8')
  } catch {
    return { state: 'gone' }
  }
  // The command name (field 2) is in parentheses and may itself hold spaces and ')': the fields
  // after the last ')' start with the state (field 3), so starttime (22) is the 20th of them.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const [state] = fields
  const startTime = fields[19]
  if (state === 'Z' || state === 'X' || startTime === undefined) return { state: 'gone' }
  return { state: 'running', startTime, args: cmdline.split('\0').filter(Boolean).join(' ') }
}

/** `ps`: the state, the start time to the second (lstart, five words) and the command line. */
export function lookUpWithPs(pid: number): ProcessLook {
  let output: string
  try {
    output = execFileSync('ps', ['-ww', '-o', 'stat=,lstart=,args=', '-p', String(pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      // The C locale fixes lstart's format. Without PATH, ps is looked up in /usr/bin:/bin.
      env: { LC_ALL: 'C' }
    })
  } catch (error) {
    // ps exits 1 when no process has the pid; any other failure proves nothing.
    if ((error as { status?: number }).status === 1) return { state: 'gone' }
    return { state: 'unknown', reason: `ps failed (${(error as Error).message.split('\n')[0]})` }
  }
  const words = output.trim().split(/\s+/)
  if (words.length < 7) return { state: 'gone' }
  if (words[0].startsWith('Z')) return { state: 'gone' }
  return {
    state: 'running',
    startTime: words.slice(1, 6).join(' '),
    args: words.slice(6).join(' ')
  }
}

/** What main saves to recognise its keeper later; undefined when the OS gives no proof. */
export function startTimeOf(pid: number, lookUp: LookUp = lookUpProcess): string | undefined {
  const look = lookUp(pid)
  return look.state === 'running' ? look.startTime : undefined
}

/** The keeper main started: same start time, and a command line ending with its directory. */
export function isKeeper(look: ProcessLook, startTime: string, dir: string): boolean {
  return look.state === 'running' && look.startTime === startTime && look.args.endsWith(` ${dir}`)
}
