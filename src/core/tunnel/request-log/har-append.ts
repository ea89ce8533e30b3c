/**
 * The common case of a rebuild, when nothing is dropped: the HAR in place is copied (by the
 * kernel, off the event loop), its closing text cut off, the new entries and the new closing
 * text (which holds the tunnel's own answers) written after them, and the copy renamed over the file. A reader still never sees half a file,
 * and the work in this process is the new entries' alone, not the whole log's: re-reading a
 * 10 MB spool every half second had cost the tunnel latency and memory.
 */
import { copyFile, open, rename, rm, stat } from 'node:fs/promises'
import { ENTRY_SEPARATOR } from './size-cap.js'

export interface HarInPlace {
  path: string
  /** Its size as this writer last wrote it: any other size means someone else changed it. */
  size: number
  /** Whether it holds entries already (a separator goes before the first new one). */
  hasEntries: boolean
  /** Bytes of its closing text as last written, after the entries (tunnel-answers.ts). */
  closingBytes: number
}

/** The new size, or undefined when the file is not as last written (then rebuild it whole). */
export async function appendEntries(
  har: HarInPlace,
  lines: readonly string[],
  closingText: string
): Promise<number | undefined> {
  if ((await stat(har.path).catch(() => undefined))?.size !== har.size) return undefined
  const temporary = `${har.path}.${process.pid}.append.tmp`
  const cut = har.size - har.closingBytes
  const separator = har.hasEntries && lines.length > 0 ? ENTRY_SEPARATOR : ''
  const added = `${separator}${lines.join(ENTRY_SEPARATOR)}${closingText}`
  try {
    await copyFile(har.path, temporary)
    const handle = await open(temporary, 'r+')
    try {
      await handle.truncate(cut)
      await handle.write(added, cut)
    } finally {
      await handle.close()
    }
    await rename(temporary, har.path)
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined)
    throw error
  }
  return cut + Buffer.byteLength(added)
}
