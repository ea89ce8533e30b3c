/**
 * The state file: what revoke needs from provision, and no secret (the core saves none). Any
 * step of the job can write it, so revoke reads it as untrusted input, as the action's post step
 * reads its saved state: only a small JSON object of strings, marked as this tool's, is read.
 */
import { closeSync, openSync, rmSync, writeSync } from 'node:fs'
import type { SavedState } from '../core/host.js'
import { isStringRecord, pathTaken, readRegularFile, writePrivateFile } from './private-file.js'

const MARKER = 'tunnel-credentials state'
const MAX_BYTES = 64 * 1024

interface StateFileContent {
  format: typeof MARKER
  values: Record<string, string>
}

/** What reading the file found: nothing, this tool's state, or a file that is not its. */
export type LoadedState =
  { type: 'none' } | { type: 'state'; values: Record<string, string> } | { type: 'foreign' }

export function loadStateFile(path: string): LoadedState {
  const text = readRegularFile(path, MAX_BYTES)
  // Anything else at the path (a large file, a link, a FIFO) is not this tool's: never replaced.
  if (text === undefined) return pathTaken(path) ? { type: 'foreign' } : { type: 'none' }
  try {
    const parsed: unknown = JSON.parse(text)
    if (!isStateFileContent(parsed)) return { type: 'foreign' }
    return { type: 'state', values: { ...parsed.values } }
  } catch {
    return { type: 'foreign' }
  }
}

function isStateFileContent(value: unknown): value is StateFileContent {
  if (typeof value !== 'object' || value === null) return false
  const { format, values } = value as Partial<StateFileContent>
  return format === MARKER && isStringRecord(values)
}

/**
 * Creates the state file, empty, only if nothing is at the path yet (O_EXCL): of two provisions
 * in one folder at once, exactly one gets it, before either sends a request. Later saves replace
 * it whole, as every save does. Undefined when claimed; otherwise what holds the path.
 */
export function claimStateFile(path: string): LoadedState | undefined {
  let fd
  try {
    fd = openSync(path, 'wx', 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    // Empty: claimed a moment ago, its first line not yet written. Gone: a revoke just ended.
    // Either way it is another command's turn, never this one's.
    const found = readRegularFile(path, MAX_BYTES) === '' ? undefined : loadStateFile(path)
    return found === undefined || found.type === 'none' ? { type: 'state', values: {} } : found
  }
  try {
    writeSync(fd, stateText({}))
  } finally {
    closeSync(fd)
  }
  return undefined
}

function stateText(values: Record<string, string>): string {
  const content: StateFileContent = { format: MARKER, values }
  return `${JSON.stringify(content, null, 2)}\n`
}

/**
 * Saved state kept in memory and, when a path is given, written whole to the file on every save:
 * a provision killed half-way still leaves revoke what it needs to clean up.
 */
export function fileState(path: string | undefined, initial: Record<string, string> = {}) {
  const values = new Map(Object.entries(initial))
  const state: SavedState & { isEmpty(): boolean; remove(): void } = {
    save: (name, value) => {
      if (value === '') values.delete(name)
      else values.set(name, value)
      if (path === undefined) return
      writePrivateFile(path, stateText(Object.fromEntries(values)))
    },
    load: name => values.get(name) ?? '',
    isEmpty: () => values.size === 0,
    remove: () => {
      if (path !== undefined && loadStateFile(path).type === 'state') rmSync(path, { force: true })
    }
  }
  return state
}
