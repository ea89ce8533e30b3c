/**
 * How the request log's file keeps up: a HAR 1.2 file that is valid at any moment after it is
 * opened, so that an upload step that runs while the tunnel still serves gets a file that opens.
 * It takes entries as finished lines (logged-request.ts makes them) and appends each to a spool
 * (one JSON line each, in the tunnel's folder); on a debounce, and at close, the new entries are
 * appended to a copy of the HAR renamed over it, or, when the cap drops something, the HAR is
 * rebuilt from the spool. The tunnel's own answers go in a list of their own after the entries
 * (tunnel-answers.ts). Memory holds a few numbers per kept entry, that list, and the lines of the
 * last moments, never the log; add() does no I/O. docs/traffic.md draws its states.
 */
import { appendFile, rm, writeFile } from 'node:fs/promises'
import { appendEntries } from './har-append.js'
import { rewriteHar, stripBodies } from './har-rewrite.js'
import { envelopeBytes, harEnvelope, type DropCounts } from './har-envelope.js'
import { dropPendingNow, planDrops, type Pending, type SpooledEntry } from './size-cap.js'
import { closingTextBytes, TunnelAnswers, tunnelAnswersBudget } from './tunnel-answers.js'

export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024
export const DEFAULT_DEBOUNCE_MS = 500
const PRIVATE_FILE = 0o600

export interface HarStoreOptions {
  /** The HAR file (the `request-log` output). */
  harPath: string
  /** The spool, in the tunnel's own folder; removed at close. */
  spoolPath: string
  /** The tool's version, for the HAR's creator. */
  creatorVersion: string
  /** The file's size cap in bytes. */
  maxBytes?: number
  /** The least time between two rebuilds. */
  debounceMs?: number
  /** A file that could not be written: one line naming it and the cause (not twice in a row). */
  onError?: (message: string) => void
  /** After each write of the file that succeeded (the tally is written beside it). */
  afterWrite?: () => Promise<void>
}

/** One entry as the store takes it: its line, and the line without bodies. */
export interface EntryLines {
  line: string
  bareLine: string
}

export class SpooledHarStore {
  private readonly maxBytes: number
  private readonly debounceMs: number
  private readonly entriesBudget: number
  /** The gate's and the proof's answers: kept apart from the entries (tunnel-answers.ts). */
  private readonly answers: TunnelAnswers
  /** Bytes of the closing text the file ends with now (it holds the tunnel's answers). */
  private closingBytes = 0
  /** Entries in the spool, oldest first; their marks (drop, strip) wait for the next rebuild. */
  private spooled: SpooledEntry[] = []
  private pending: Pending[] = []
  private pendingBytes = 0
  /** Drops written in the file, and drops marked since (written by the next rebuild). */
  private written: DropCounts = { bodies: 0, entries: 0 }
  private marked: DropCounts = { bodies: 0, entries: 0 }
  private timer: ReturnType<typeof setTimeout> | undefined
  private running: Promise<void> | undefined
  private lastRebuildMs = 0
  /** The HAR's size as last written whole or appended to; undefined: rebuild it whole next. */
  private harSize: number | undefined
  private closed = false
  private lastError: string | undefined

  private constructor(private readonly options: HarStoreOptions) {
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
    this.debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS
    const answersBudget = tunnelAnswersBudget(this.maxBytes)
    this.answers = new TunnelAnswers(answersBudget)
    this.entriesBudget =
      this.maxBytes -
      envelopeBytes(options.creatorVersion, this.maxBytes) -
      closingTextBytes(answersBudget)
  }

  /** Starts an empty log: the HAR file exists and is valid once this resolves. */
  static async open(options: HarStoreOptions): Promise<SpooledHarStore> {
    const store = new SpooledHarStore(options)
    await writeFile(options.spoolPath, '', { mode: PRIVATE_FILE })
    await store.startRebuild()
    return store
  }

  /** Bodies and entries dropped from the file so far to keep it under its cap. */
  get dropped(): DropCounts {
    return { ...this.written }
  }

  /** Takes one entry of the app's; never waits. The file follows within the debounce. */
  add({ line, bareLine }: EntryLines): void {
    if (this.closed) return
    const size = Buffer.byteLength(line)
    const bare = Buffer.byteLength(bareLine)
    this.pending.push({ line, spooled: { size, bareSize: bare } })
    this.pendingBytes += size
    if (this.pendingBytes > 2 * this.maxBytes) this.dropPendingNow()
    this.schedule(this.pendingBytes > this.maxBytes ? 0 : this.delay())
  }

  /** Takes one of the tunnel's own answers (tunnel-answers.ts); never waits. */
  addTunnelAnswer({ line, bareLine }: EntryLines): void {
    if (this.closed) return
    this.answers.add(line, bareLine)
    this.schedule(this.delay())
  }

  /** Writes everything recorded so far into the file. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    while (this.running) await this.running
    await this.startRebuild()
  }

  /** The final file, then no more: later records are ignored, and the spool is removed. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.flush()
    await rm(this.options.spoolPath, { force: true }).catch(() => undefined)
  }

  /** A flood that outruns the disk must not grow memory (size-cap.ts: dropPendingNow). */
  private dropPendingNow(): void {
    const dropped = dropPendingNow(this.spooled, this.pending, this.entriesBudget, stripBodies)
    this.marked.bodies += dropped.bodies
    this.marked.entries += dropped.entries
    this.pending = dropped.kept
    this.pendingBytes = this.pending.reduce((total, item) => total + item.spooled.size, 0)
  }

  /** Rebuilds wait at least the debounce, and twice the last rebuild's time on a slow disk. */
  private delay(): number {
    return Math.max(this.debounceMs, 2 * this.lastRebuildMs)
  }

  private schedule(delayMs: number): void {
    if (this.running || (this.timer && delayMs > 0)) return
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.timer = undefined
      void this.startRebuild()
    }, delayMs)
    // The log never keeps the process alive: close() writes what is left.
    this.timer.unref()
  }

  private startRebuild(): Promise<void> {
    this.running = this.rebuild().finally(() => {
      this.running = undefined
      if ((this.pending.length === 0 && !this.answers.changed) || this.closed) return
      this.schedule(this.pendingBytes > this.maxBytes ? 0 : this.delay())
    })
    return this.running
  }

  /**
   * Brings the file up to date: by appending when nothing goes (har-append.ts), else by one pass
   * over the spool that writes the new HAR, and a compacted spool when entries or bodies went.
   * The state changes only once the files are in place: after a failure (a full disk), the next
   * rebuild starts again from the files as they are, with the records it could not write.
   */
  private async rebuild(): Promise<void> {
    const started = Date.now()
    const batch = this.pending
    this.pending = []
    this.pendingBytes = 0
    const inSpool = this.spooled.length
    const entries = [...this.spooled, ...batch.map(item => item.spooled)]
    const planned = planDrops(entries, this.entriesBudget)
    this.marked.bodies += planned.bodies
    this.marked.entries += planned.entries
    const dropped = {
      bodies: this.written.bodies + this.marked.bodies,
      entries: this.written.entries + this.marked.entries
    }
    const compact = entries.slice(0, inSpool).some(entry => entry.drop || entry.stripBodies)
    const envelope = {
      prefix: harEnvelope(this.options.creatorVersion, this.maxBytes, dropped),
      suffix: this.answers.closingText()
    }
    const answersChanged = this.answers.changed
    this.answers.changed = false
    const sameDrops =
      dropped.bodies === this.written.bodies && dropped.entries === this.written.entries
    try {
      const appended =
        this.harSize !== undefined && !compact && sameDrops
          ? await this.append(batch, inSpool > 0, answersChanged ? envelope.suffix : undefined)
          : false
      if (!appended) await this.rewrite(batch, entries, inSpool, envelope)
    } catch (error) {
      // The marks stay: the next rebuild carries them out, with these records again.
      this.answers.changed = true
      this.spooled = entries.slice(0, inSpool)
      this.pending = [...batch, ...this.pending]
      this.pendingBytes += batch.reduce((total, item) => total + item.spooled.size, 0)
      const { code, message } = error as NodeJS.ErrnoException
      this.report(`could not write the request log ${this.options.harPath} (${code ?? message})`)
      return
    } finally {
      this.lastRebuildMs = Date.now() - started
    }
    this.spooled = entries.filter(entry => !entry.drop)
    this.closingBytes = Buffer.byteLength(envelope.suffix)
    this.written = dropped
    this.marked = { bodies: 0, entries: 0 }
    this.lastError = undefined
    await this.options.afterWrite?.()
  }

  /** Appends the batch to the file and the spool; false when the file must be written whole. */
  /** `closing`: the new closing text, undefined when the tunnel's answers have not changed. */
  private async append(batch: Pending[], hasEntries: boolean, closing?: string): Promise<boolean> {
    if (batch.length === 0 && closing === undefined) return true
    const { harPath, spoolPath } = this.options
    const lines = batch.map(item => item.line)
    const har = { path: harPath, size: this.harSize!, hasEntries, closingBytes: this.closingBytes }
    const size = await appendEntries(har, lines, closing ?? this.answers.closingText())
    // Until the spool has them too, only a whole rewrite (from the spool) is right.
    this.harSize = undefined
    if (size === undefined) return false
    await appendFile(spoolPath, lines.map(line => `${line}\n`).join(''))
    this.harSize = size
    return true
  }

  private async rewrite(
    batch: Pending[],
    entries: SpooledEntry[],
    inSpool: number,
    envelope: { prefix: string; suffix: string }
  ): Promise<void> {
    this.harSize = undefined
    const { harPath, spoolPath } = this.options
    const { size, stripped } = await rewriteHar({
      harPath,
      spoolPath,
      ...envelope,
      entries,
      inSpool,
      batchLines: batch.map(item => item.line)
    })
    this.harSize = size
    for (const [entry, bytes] of stripped) {
      entry.size = entry.bareSize = bytes
      entry.stripBodies = undefined
    }
  }

  /** A failure to tell: the same one is told once until a write succeeds. */
  report(message: string): void {
    if (message === this.lastError) return
    this.lastError = message
    this.options.onError?.(message)
  }
}
