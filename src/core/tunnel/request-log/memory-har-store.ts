/**
 * The simpler way to keep the HAR file, measured against the spooled store (har-store.ts): the
 * entries that fit under the cap are held in memory as lines, oldest first, and the whole file is
 * written beside its path and renamed over it on each debounce. No spool, no append, no rewrite
 * from disk; the cap is applied to the lines in memory (size-cap.ts' planDrops).
 */
import { rename, rm, writeFile } from 'node:fs/promises'
import { stripBodies } from './har-rewrite.js'
import { envelopeBytes, harEnvelope, type DropCounts } from './har-envelope.js'
import type { EntryLines, HarStoreOptions } from './har-store.js'
import { DEFAULT_DEBOUNCE_MS, DEFAULT_MAX_BYTES } from './har-store.js'
import { ENTRY_SEPARATOR, entriesBytes, planDrops, type SpooledEntry } from './size-cap.js'
import { closingTextBytes, TunnelAnswers, tunnelAnswersBudget } from './tunnel-answers.js'

const PRIVATE_FILE = 0o600

interface HeldEntry extends SpooledEntry {
  line: string
}

export class MemoryHarStore {
  private readonly debounceMs: number
  private readonly entriesBudget: number
  private readonly maxBytes: number
  private readonly answers: TunnelAnswers
  private held: HeldEntry[] = []
  /** Bytes of the held lines with their separators. */
  private heldBytes = 0
  private dropCounts: DropCounts = { bodies: 0, entries: 0 }
  private changed = true
  private timer: ReturnType<typeof setTimeout> | undefined
  private running: Promise<void> | undefined
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

  static async open(options: HarStoreOptions): Promise<MemoryHarStore> {
    const store = new MemoryHarStore(options)
    await store.write()
    return store
  }

  get dropped(): DropCounts {
    return { ...this.dropCounts }
  }

  add({ line, bareLine }: EntryLines): void {
    if (this.closed) return
    const size = Buffer.byteLength(line)
    this.held.push({ line, size, bareSize: Buffer.byteLength(bareLine) })
    this.heldBytes += size + (this.held.length > 1 ? ENTRY_SEPARATOR.length : 0)
    if (this.heldBytes > this.entriesBudget) this.applyCap()
    this.changed = true
    this.schedule()
  }

  addTunnelAnswer({ line, bareLine }: EntryLines): void {
    if (this.closed) return
    this.answers.add(line, bareLine)
    this.changed = true
    this.schedule()
  }

  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    while (this.running) await this.running
    await this.write()
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.flush()
  }

  report(message: string): void {
    if (message === this.lastError) return
    this.lastError = message
    this.options.onError?.(message)
  }

  /** The oldest bodies, then the oldest entries, go as soon as the lines outgrow the budget. */
  private applyCap(): void {
    const planned = planDrops(this.held, this.entriesBudget)
    if (planned.bodies + planned.entries === 0) return
    this.dropCounts.bodies += planned.bodies
    this.dropCounts.entries += planned.entries
    this.held = this.held.filter(entry => !entry.drop)
    for (const entry of this.held) {
      if (!entry.stripBodies) continue
      entry.line = stripBodies(entry.line)
      entry.size = entry.bareSize = Buffer.byteLength(entry.line)
      entry.stripBodies = undefined
    }
    this.heldBytes = entriesBytes(this.held)
  }

  private schedule(): void {
    if (this.timer || this.running) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.running = this.write().finally(() => {
        this.running = undefined
        if (this.changed && !this.closed) this.schedule()
      })
    }, this.debounceMs)
    this.timer.unref()
  }

  /** The whole file, beside its path, renamed over it: a reader never sees half of it. */
  private async write(): Promise<void> {
    if (!this.changed) return
    this.changed = false
    const { harPath, creatorVersion } = this.options
    const text =
      harEnvelope(creatorVersion, this.maxBytes, this.dropCounts) +
      this.held.map(entry => entry.line).join(ENTRY_SEPARATOR) +
      this.answers.closingText()
    const temporary = `${harPath}.${process.pid}.tmp`
    try {
      await writeFile(temporary, text, { mode: PRIVATE_FILE })
      await rename(temporary, harPath)
    } catch (error) {
      this.changed = true
      await rm(temporary, { force: true }).catch(() => undefined)
      const { code, message } = error as NodeJS.ErrnoException
      this.report(`could not write the request log ${harPath} (${code ?? message})`)
      return
    }
    this.lastError = undefined
    await this.options.afterWrite?.()
  }
}
