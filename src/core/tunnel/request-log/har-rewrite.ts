/**
 * A rebuild of the whole HAR: one pass over the spool (and the new entries) writes a new file,
 * and a compacted spool when the cap dropped entries or bodies, each beside its path and renamed
 * into place, so no reader sees half a file. Only what the disk has not taken yet is in memory.
 */
import { createReadStream } from 'node:fs'
import { appendFile, rename, stat } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import { FileSink } from './file-sink.js'
import { withoutBodies, type HarEntry } from './har-entry.js'
import { ENTRY_SEPARATOR, type SpooledEntry } from './size-cap.js'

const PRIVATE_FILE = 0o600

export interface Rewrite {
  harPath: string
  spoolPath: string
  prefix: string
  suffix: string
  /** The spooled entries, then the new ones, with the cap's marks. */
  entries: SpooledEntry[]
  /** How many of `entries` are in the spool already. */
  inSpool: number
  /** The new entries' lines. */
  batchLines: string[]
}

/** The new file's size, and the entries whose bodies went, with their new sizes. */
export async function rewriteHar(job: Rewrite): Promise<{
  size: number
  stripped: [SpooledEntry, number][]
}> {
  const { harPath, spoolPath, entries, inSpool } = job
  const compact = entries.slice(0, inSpool).some(entry => entry.drop || entry.stripBodies)
  const har = new FileSink(`${harPath}.${process.pid}.tmp`, PRIVATE_FILE)
  const spool = compact ? new FileSink(`${spoolPath}.tmp`, PRIVATE_FILE) : undefined
  const input = inSpool > 0 ? createReadStream(spoolPath) : undefined
  const appended: string[] = []
  const stripped: [SpooledEntry, number][] = []
  try {
    await har.write(job.prefix)
    let first = true
    const emit = async (line: string, entry: SpooledEntry, fromSpool: boolean): Promise<void> => {
      if (entry.drop) return
      const kept = entry.stripBodies ? stripBodies(line) : line
      if (entry.stripBodies) stripped.push([entry, Buffer.byteLength(kept)])
      await har.write(first ? kept : `${ENTRY_SEPARATOR}${kept}`)
      first = false
      if (spool) await spool.write(`${kept}\n`)
      else if (!fromSpool) appended.push(`${kept}\n`)
    }
    let index = 0
    if (input) {
      // Lines past those counted (none, unless someone else wrote to the spool) are skipped.
      for await (const line of createInterface({ input, crlfDelay: Infinity })) {
        if (index < inSpool) await emit(line, entries[index++], true)
      }
    }
    for (const [offset, line] of job.batchLines.entries()) {
      await emit(line, entries[inSpool + offset], false)
    }
    await har.write(job.suffix)
    await har.end()
    await spool?.end()
    await rename(har.path, harPath)
    const size = (await stat(harPath)).size
    if (spool) await rename(spool.path, spoolPath)
    else if (appended.length > 0) await appendFile(spoolPath, appended.join(''))
    return { size, stripped }
  } catch (error) {
    input?.destroy()
    await har.abandon()
    await spool?.abandon()
    throw error
  }
}

/** A spooled line without its bodies. */
export function stripBodies(line: string): string {
  return JSON.stringify(withoutBodies(JSON.parse(line) as HarEntry))
}
