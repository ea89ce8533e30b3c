/**
 * The state file: what revoke needs from provision, and no secret (the core saves none). Any
 * step of the job can write it, so revoke reads it as untrusted input, as the action's post step
 * reads its saved state: only a small JSON object of strings, marked as this tool's, is read.
 */
import { rmSync } from 'node:fs'
import type { SavedState } from '../core/host.js'
import { isStringRecord, readRegularFile, writePrivateFile } from './private-file.js'

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
  if (text === undefined) return { type: 'none' }
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
      const content: StateFileContent = { format: MARKER, values: Object.fromEntries(values) }
      writePrivateFile(path, `${JSON.stringify(content, null, 2)}\n`)
    },
    load: name => values.get(name) ?? '',
    isEmpty: () => values.size === 0,
    remove: () => {
      if (path !== undefined && loadStateFile(path).type === 'state') rmSync(path, { force: true })
    }
  }
  return state
}
