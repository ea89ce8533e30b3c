/**
 * `run` gives its command the credential, never the API key. But the command runs as the same
 * user as `run`, so it can read `/proc/<run's pid>/environ`: the environment block that execve
 * copied into `run`'s memory when it started. Deleting a variable from process.env only unlinks
 * it from libc's list; the block, and so that file, still hold it. `run` therefore overwrites the
 * secrets' entries in that block itself, through /proc/self/mem, after reading them.
 * Linux only: elsewhere the block stays as it is, and `run` says so.
 */
import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs'
import { describeUnexpected } from '../core/text/describe-error.js'
import { SECRET_VARIABLES } from '../core/options/option-facts.js'
import type { Terminal } from './host.js'

/** The process whose environment is cleared; the tests point it elsewhere. */
export interface OwnProcess {
  platform: NodeJS.Platform
  pid: number
  /** Where the kernel shows this process (/proc/self). */
  procDir: string
  /** What children started without an environment of their own inherit (process.env). */
  inherited: NodeJS.ProcessEnv
}

export type ClearedEnvironment = { env: NodeJS.ProcessEnv; warning?: string } | { error: string }

/**
 * `run`'s first step: the input, with the secrets kept in this copy of the environment only.
 * Undefined, after the error line, when they could not be cleared where the command could read
 * them: nothing has been provisioned yet, so refusing costs nothing, while going on would hand the
 * command the key that `run` promises to keep from it.
 */
export function keepSecretsFromCommand<T extends { env: NodeJS.ProcessEnv; terminal: Terminal }>(
  input: T,
  own: OwnProcess = thisProcess()
): T | undefined {
  const cleared = clearSecretsFromOwnEnvironment(input.env, own)
  if ('error' in cleared) return (input.terminal.stderr(`Error: ${cleared.error}`), undefined)
  if (cleared.warning !== undefined) input.terminal.stderr(`Warning: ${cleared.warning}`)
  return { ...input, env: cleared.env }
}

/**
 * A copy of `env` that keeps the secrets for this process's own use; the secrets leave the
 * inherited environment and, on Linux, the block in /proc/<pid>/environ.
 */
export function clearSecretsFromOwnEnvironment(
  env: NodeJS.ProcessEnv,
  own: OwnProcess = thisProcess()
): ClearedEnvironment {
  const copy = { ...env }
  const present = SECRET_VARIABLES.filter(name => env[name] !== undefined)
  // First out of libc's list, so that nothing points into the entries about to be overwritten.
  for (const name of SECRET_VARIABLES) delete own.inherited[name]
  if (present.length === 0) return { env: copy }
  const names = present.join(' and ')
  if (own.platform !== 'linux') {
    return {
      env: copy,
      warning: `on ${own.platform}, run cannot clear ${names} from the environment it was started with, where other processes of this user, COMMAND among them, may read it. Only on Linux does run keep it from COMMAND.`
    }
  }
  try {
    overwriteEntries(own.procDir, SECRET_VARIABLES)
  } catch (error) {
    return {
      error: `run could not clear ${names} from its own environment block (${describeUnexpected(error)}), where COMMAND could read it in /proc/${own.pid}/environ, so nothing was started. Use provision and revoke around COMMAND instead, or a runner where a process may write its own /proc/self/mem.`
    }
  }
  return { env: copy }
}

function thisProcess(): OwnProcess {
  return {
    platform: process.platform,
    pid: process.pid,
    procDir: '/proc/self',
    inherited: process.env
  }
}

/**
 * Overwrites every entry `NAME=…` of the given names with NUL bytes where the kernel keeps the
 * block, then reads the block back as any other process would: the secrets must be gone.
 */
function overwriteEntries(procDir: string, names: readonly string[]): void {
  if (secretEntries(readFileSync(`${procDir}/environ`), names).length === 0) return
  const { start, end } = environmentBlock(readFileSync(`${procDir}/stat`, 'utf8'))
  const memory = openSync(`${procDir}/mem`, 'r+')
  try {
    const block = Buffer.alloc(end - start)
    if (readSync(memory, block, 0, block.length, start) !== block.length) {
      throw new Error('the block could not be read whole')
    }
    for (const [from, to] of secretEntries(block, names)) {
      if (writeSync(memory, Buffer.alloc(to - from), 0, to - from, start + from) !== to - from) {
        throw new Error('the block could not be written whole')
      }
    }
  } finally {
    closeSync(memory)
  }
  if (secretEntries(readFileSync(`${procDir}/environ`), names).length > 0) {
    throw new Error('the entries were still there after they were overwritten')
  }
}

/** [from, to) of each entry `NAME=value` of the given names, in a block of NUL-ended entries. */
function secretEntries(block: Buffer, names: readonly string[]): [number, number][] {
  const prefixes = names.map(name => Buffer.from(`${name}=`))
  const found: [number, number][] = []
  for (let from = 0; from < block.length;) {
    const nul = block.indexOf(0, from)
    const to = nul === -1 ? block.length : nul
    const entry = block.subarray(from, to)
    if (prefixes.some(prefix => entry.subarray(0, prefix.length).equals(prefix))) {
      found.push([from, to])
    }
    from = to + 1
  }
  return found
}

/**
 * env_start and env_end, fields 50 and 51 of /proc/<pid>/stat (Linux 3.5 and later). The command
 * name (field 2) is in parentheses and may itself hold spaces and ')': the fields after the last
 * ')' start with field 3.
 */
function environmentBlock(stat: string): { start: number; end: number } {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const [start, end] = [fields[50 - 3], fields[51 - 3]].map(field =>
    /^\d+$/.test(field ?? '') ? Number(field) : Number.NaN
  )
  // Addresses are written as numbers: fs.writeSync takes no bigint position.
  if (!(start > 0 && end > start && Number.isSafeInteger(end))) {
    throw new Error('/proc/self/stat gives no address for it')
  }
  return { start, end }
}
