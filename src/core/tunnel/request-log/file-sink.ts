/**
 * A file written as a stream with backpressure, so that rebuilding a large HAR holds only what
 * the disk has not taken yet; on failure it is removed, so no half-written file is left.
 */
import { createWriteStream, type WriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { once } from 'node:events'
import { finished } from 'node:stream/promises'

export class FileSink {
  private readonly stream: WriteStream
  private failure: Error | undefined

  constructor(
    readonly path: string,
    mode: number
  ) {
    this.stream = createWriteStream(path, { mode })
    this.stream.on('error', error => (this.failure = error))
  }

  async write(text: string): Promise<void> {
    if (this.failure) throw this.failure
    // once() rejects when the stream fails while it waits.
    if (!this.stream.write(text)) await once(this.stream, 'drain')
  }

  async end(): Promise<void> {
    if (this.failure) throw this.failure
    this.stream.end()
    await finished(this.stream)
  }

  /** Closes and removes the file, whatever state it is in. */
  async abandon(): Promise<void> {
    this.stream.destroy()
    await finished(this.stream).catch(() => undefined)
    await rm(this.path, { force: true }).catch(() => undefined)
  }
}
