/**
 * Which files provision may replace: only ones this tool wrote. A project's own `.env` named as
 * the variables file, or its `package.json` as the outputs file, is refused before any request,
 * so no credential is made that could not be handed over, and revoke never deletes it later.
 */
import { isStringRecord, pathTaken, readRegularFile } from './private-file.js'

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
