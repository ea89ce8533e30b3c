/**
 * The request log: each record is made into what the log keeps (logged-request.ts: redacted, the
 * edge's report of the client, the HAR entry's line), counted for the summary (tally.ts), and
 * handed to the store that keeps the HAR file up (har-store.ts), which writes the tally beside it
 * after each write. The forwarding code only ever calls record(), which does no I/O.
 */
import { loggedRequest } from './logged-request.js'
import type { PublicBaseUrl } from './har-entry.js'
import type { RequestRecord } from './record.js'
import { makeRedactor, type RedactionPolicy, type Redactor } from './redact.js'
import { SpooledHarStore, type HarStoreOptions } from './har-store.js'
import type { DropCounts } from './har-envelope.js'
import { RequestTally, writeTally } from './tally.js'

export { DEFAULT_DEBOUNCE_MS, DEFAULT_MAX_BYTES } from './har-store.js'

export interface HarWriterOptions extends HarStoreOptions {
  /** Where the tally for the summary is written with each write of the HAR, if anywhere. */
  tallyPath?: string
  publicBaseUrl: PublicBaseUrl
  redaction: RedactionPolicy
}

export class HarWriter {
  readonly tally = new RequestTally()
  private readonly redact: Redactor
  private closed = false
  /** Set by open(), before any record can come. */
  private store: SpooledHarStore | undefined

  private constructor(private readonly options: HarWriterOptions) {
    this.redact = makeRedactor(options.redaction)
  }

  /** Starts an empty log: the HAR file exists and is valid once this resolves. */
  static async open(options: HarWriterOptions): Promise<HarWriter> {
    const writer = new HarWriter(options)
    writer.store = await SpooledHarStore.open({
      ...options,
      afterWrite: () => writer.writeTally()
    })
    return writer
  }

  /** Bodies and entries dropped from the file so far to keep it under its cap. */
  get dropped(): DropCounts {
    return this.store!.dropped
  }

  /** Takes one request; never throws and never waits. The file follows within the debounce. */
  record(record: RequestRecord): void {
    if (this.closed) return
    try {
      const logged = loggedRequest(record, this.redact, this.options.publicBaseUrl)
      this.tally.add(logged.record)
      if (logged.record.tunnelAnswered === true) this.store!.addTunnelAnswer(logged)
      else this.store!.add(logged)
    } catch (error) {
      this.report(`could not log a request (${(error as Error).message})`)
    }
  }

  /** Writes everything recorded so far into the file. */
  flush(): Promise<void> {
    return this.store!.flush()
  }

  /** The final file, then no more: later records are ignored, and the spool is removed. */
  close(): Promise<void> {
    this.closed = true
    return this.store!.close()
  }

  private async writeTally(): Promise<void> {
    const { tallyPath } = this.options
    if (!tallyPath) return
    try {
      await writeTally(tallyPath, this.tally)
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException
      this.report(`could not write the request counts ${tallyPath} (${code ?? message})`)
    }
  }

  /** Through the store, which tells a failure once; before it is open, directly. */
  private report(message: string): void {
    if (this.store) this.store.report(message)
    else this.options.onError?.(message)
  }
}
