/**
 * Files only the job's user may read, written whole or not at all: a reader never sees half a
 * file, and a symlink planted at the path after provision checked it (own-files.ts refuses one
 * found before) is replaced, never followed.
 */
import { randomBytes } from 'node:crypto'
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeSync
} from 'node:fs'
import { basename, dirname, join } from 'node:path'

export function writePrivateFile(path: string, text: string): void {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`)
  // wx: a fresh file, never one someone placed there; 0600 from its first byte.
  const fd = openSync(temporary, 'wx', 0o600)
  try {
    writeSync(fd, text)
  } finally {
    closeSync(fd)
  }
  try {
    renameSync(temporary, path)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
}

/** The file's text, or undefined when there is no regular file at the path. */
export function readRegularFile(path: string, maxBytes: number): string | undefined {
  let stats
  try {
    stats = lstatSync(path)
  } catch {
    return undefined
  }
  if (!stats.isFile() || stats.size > maxBytes) return undefined
  return readFileSync(path, 'utf8')
}

/** The first `bytes` of a regular file (never through a link); undefined for anything else. */
export function readFileStart(path: string, bytes: number): string | undefined {
  let fd
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW)
  } catch {
    return undefined
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined
    const buffer = Buffer.alloc(bytes)
    return buffer.subarray(0, readSync(fd, buffer, 0, bytes, 0)).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

/** True when anything at all is at the path: a file, a folder, a link (even a broken one). */
export function pathTaken(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}

/** A JSON object whose every value is a string: the shape of the state and outputs files. */
export function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every(item => typeof item === 'string')
  )
}
