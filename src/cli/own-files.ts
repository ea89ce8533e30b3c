/**
 * Which files provision may replace: only ones this tool wrote. A project's own `.env` named as
 * the variables file, or its `package.json` as the outputs file, is refused before any request,
 * so no credential is made that could not be handed over, and revoke never deletes it later.
 */
import { rmSync } from 'node:fs'
import { isStringRecord, pathTaken, readFileStart, readRegularFile } from './private-file.js'

/** An outputs file this tool wrote: a JSON object of strings (it may hold the token). */
export function isOwnOutputsFile(path: string): boolean {
  const text = readRegularFile(path, 1 << 20)
  if (text === undefined) return false
  try {
    return isStringRecord(JSON.parse(text))
  } catch {
    return false
  }
}

/** Deletes the outputs file, if there is one and this tool wrote it; anything else stays. */
export function removeOwnOutputsFile(path: string | undefined): void {
  if (path !== undefined && isOwnOutputsFile(path)) rmSync(path, { force: true })
}

/** The HAR creator the tunnel's request log names (src/core/tunnel/request-log/ writes it). */
export const REQUEST_LOG_CREATOR = 'tunnel-credentials'
/** A HAR file's start, as the request log writes it: enough to know it is ours, read cheaply. */
const OWN_HAR_START = new RegExp(
  `^\\s*\\{\\s*"log"\\s*:\\s*\\{\\s*"version"\\s*:\\s*"1\\.2"\\s*,\\s*"creator"\\s*:\\s*\\{\\s*"name"\\s*:\\s*"${REQUEST_LOG_CREATOR}"`
)
const HAR_START_BYTES = 4096

/**
 * A request log this tool wrote: a HAR file whose creator is tunnel-credentials. Only its start is
 * read: the log may be large, and the creator comes first in it.
 */
export function isOwnRequestLog(path: string): boolean {
  const start = readFileStart(path, HAR_START_BYTES)
  return start !== undefined && OWN_HAR_START.test(start)
}

/**
 * The first of provision's files whose path holds something this tool did not write (a file,
 * a folder, a link), with the option that names it; undefined when every path is free or its own.
 */
export function foreignFileAmong(
  files: { option: string; path: string | undefined; isOwn: (path: string) => boolean }[]
): { option: string; path: string } | undefined {
  for (const { option, path, isOwn } of files) {
    if (path !== undefined && pathTaken(path) && !isOwn(path)) return { option, path }
  }
  return undefined
}
