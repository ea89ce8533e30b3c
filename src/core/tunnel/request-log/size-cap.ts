/**
 * The HAR file's size cap: what to drop so that the file stays within its bytes. The oldest
 * bodies go first, then the oldest entries, so the file keeps the most recent requests whole and
 * every request it can. Only a few numbers per entry are kept in memory, and only for entries
 * that are kept: their count is bounded by the cap, not by the number of requests.
 */

export interface SpooledEntry {
  /** Bytes of its line in the HAR as it stands. */
  size: number
  /** Bytes of its line without bodies (equal to size when it has none). */
  bareSize: number
  /** Decided by planDrops: the entry goes. */
  drop?: boolean
  /** Decided by planDrops: its bodies go. */
  stripBodies?: boolean
}

/** Between two entries in the file: `,\n`. */
export const ENTRY_SEPARATOR = ',\n'

/** Bytes of the entries' lines in the file, separators included. */
export function entriesBytes(entries: readonly SpooledEntry[]): number {
  const kept = entries.filter(entry => !entry.drop)
  const lines = kept.reduce(
    (total, entry) => total + (entry.stripBodies ? entry.bareSize : entry.size),
    0
  )
  return lines + Math.max(0, kept.length - 1) * ENTRY_SEPARATOR.length
}

/**
 * Marks what must go so that the entries fit in `budget` bytes: bodies from the oldest on, then
 * entries from the oldest on. Returns how many bodies and entries it marked.
 */
export function planDrops(
  entries: readonly SpooledEntry[],
  budget: number
): { bodies: number; entries: number } {
  let total = entriesBytes(entries)
  let bodies = 0
  for (const entry of entries) {
    if (total <= budget) break
    if (entry.drop || entry.stripBodies || entry.bareSize === entry.size) continue
    entry.stripBodies = true
    total -= entry.size - entry.bareSize
    bodies++
  }
  let dropped = 0
  let kept = entries.filter(entry => !entry.drop).length
  for (const entry of entries) {
    if (total <= budget) break
    if (entry.drop) continue
    entry.drop = true
    kept--
    total -=
      (entry.stripBodies ? entry.bareSize : entry.size) + (kept > 0 ? ENTRY_SEPARATOR.length : 0)
    dropped++
  }
  return { bodies, entries: dropped }
}

/** A record's line waiting for the next rebuild, with its numbers. */
export interface Pending {
  line: string
  spooled: SpooledEntry
}

/**
 * A flood that outruns the disk must not grow memory: what the cap will drop anyway is decided
 * now, over the spool and the waiting records alike (so the order holds: the oldest bodies,
 * then the oldest entries), and the waiting records lose their part at once. The spool's part
 * is planned on copies: a rebuild may be reading it, and the next one plans the same again.
 */
export function dropPendingNow(
  spooled: readonly SpooledEntry[],
  pending: Pending[],
  budget: number,
  stripBodies: (line: string) => string
): { kept: Pending[]; bodies: number; entries: number } {
  const copies = spooled.map(entry => ({ ...entry }))
  planDrops([...copies, ...pending.map(item => item.spooled)], budget)
  let bodies = 0
  let entries = 0
  for (const item of pending) {
    if (item.spooled.drop) entries++
    if (!item.spooled.stripBodies) continue
    bodies++
    item.line = stripBodies(item.line)
    item.spooled.size = item.spooled.bareSize = Buffer.byteLength(item.line)
    item.spooled.stripBodies = undefined
  }
  return { kept: pending.filter(item => !item.spooled.drop), bodies, entries }
}
