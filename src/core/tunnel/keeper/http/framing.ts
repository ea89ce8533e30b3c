/**
 * A streaming reader of HTTP/1.x messages that never changes a byte: it finds where each head
 * ends and where each body ends (Content-Length, chunked, or the connection's end) and hands
 * the handler the very bytes it was given, sliced at those boundaries. Bodies are not buffered:
 * each piece of a body is passed on as it arrives, so long streamed answers flow through.
 */

/** How a message's body is delimited, decided from its head (see rules.ts). */
export type BodyFraming =
  | { kind: 'none' }
  | { kind: 'length'; length: number }
  | { kind: 'chunked' }
  | { kind: 'until-close' }
  /** No more HTTP on this side: everything after the head is passed on as it comes. */
  | { kind: 'raw' }

export interface MessageEvents {
  /** A whole head, CRLF CRLF included; returns how its body is delimited. May throw. */
  head(bytes: Buffer): BodyFraming
  /** Bytes of the current body as they arrived (chunk sizes and trailers included). */
  body(bytes: Buffer): void
  /** The body's content, chunk framing removed (for the log's capture). */
  data(bytes: Buffer): void
  /** The message is complete. */
  end(): void
  /** Bytes after the switch to raw (an accepted Upgrade), unchanged. */
  raw(bytes: Buffer): void
}

/** The bytes do not follow HTTP/1.1 framing; `status` is what to answer a client with. */
export class FramingError extends Error {
  constructor(
    readonly status: 400 | 431 | 502,
    message: string
  ) {
    super(message)
  }
}

/** The longest request or answer head read: larger than any server's default (Node's 16 KiB). */
export const MAX_HEAD_BYTES = 64 * 1024

const enum State {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailers,
  UntilClose,
  Raw
}

const CRLF_CRLF = Buffer.from('\r\n\r\n')
/** A chunk-size line (hex size, optional extensions) is never near this long. */
const MAX_CHUNK_LINE = 4096

export class MessageReader {
  private state = State.Head
  private remaining = 0
  /** The head, or a chunk-size or trailer line, read so far across chunks. */
  private partial: Buffer | undefined
  private held: Buffer | undefined
  private paused = false

  constructor(
    private readonly events: MessageEvents,
    private readonly maxHeadBytes: number
  ) {}

  /** Bytes of a head begun and not yet complete, held here until its end comes. */
  get partialHeadBytes(): number {
    return this.state === State.Head ? (this.partial?.length ?? 0) : 0
  }

  /** Stops after the current message: later bytes are held until resume() or passRaw(). */
  pause(): void {
    this.paused = true
  }

  resume(): void {
    this.paused = false
    const held = this.held
    this.held = undefined
    if (held !== undefined) this.feed(held)
  }

  /** From now on every byte, held ones first, goes to events.raw unchanged. */
  passRaw(): void {
    this.state = State.Raw
    this.resume()
  }

  /** The sender closed its side: a body delimited by that end is complete. */
  senderEnded(): void {
    if (this.state !== State.UntilClose) return
    this.state = State.Head
    this.events.end()
  }

  feed(chunk: Buffer): void {
    if (this.held !== undefined) {
      chunk = Buffer.concat([this.held, chunk])
      this.held = undefined
    }
    let at = 0
    // Where the body bytes of this chunk begin: passed on in one piece, not chunk by chunk.
    let bodyFrom = -1
    const flushBody = (to: number): void => {
      if (bodyFrom !== -1 && to > bodyFrom) this.events.body(chunk.subarray(bodyFrom, to))
      bodyFrom = -1
    }
    while (at < chunk.length) {
      if (this.state === State.Raw) {
        this.events.raw(at === 0 ? chunk : chunk.subarray(at))
        return
      }
      if (this.state === State.Head) {
        if (this.paused) {
          this.held = chunk.subarray(at)
          return
        }
        at = this.readHead(chunk, at)
        if (this.state !== State.Head && this.state !== State.Raw) bodyFrom = at
        continue
      }
      if (bodyFrom === -1) bodyFrom = at
      at = this.readBody(chunk, at)
      // readBody moves the state on (TypeScript keeps the narrowing from above).
      if ((this.state as State) === State.Head) {
        flushBody(at)
        this.events.end()
      }
    }
    flushBody(chunk.length)
  }

  /** Reads up to the end of the head; returns where it stopped. */
  private readHead(chunk: Buffer, at: number): number {
    // Empty lines before a request line are ignored (RFC 9112, 2.2), as servers do.
    if (this.partial === undefined) {
      while (at < chunk.length && (chunk[at] === 0x0d || chunk[at] === 0x0a)) at += 1
      if (at === chunk.length) return at
    }
    const before = this.partial?.length ?? 0
    const text =
      this.partial === undefined ? chunk : Buffer.concat([this.partial, chunk.subarray(at)])
    const start = this.partial === undefined ? at : 0
    const end = text.indexOf(CRLF_CRLF, Math.max(start, before - 3))
    if (end === -1) {
      if (text.length - start > this.maxHeadBytes) {
        throw new FramingError(431, 'the request head is larger than the tunnel reads')
      }
      this.partial = Buffer.from(text.subarray(start))
      return chunk.length
    }
    this.partial = undefined
    const head = text.subarray(start, end + 4)
    if (head.length > this.maxHeadBytes) {
      throw new FramingError(431, 'the request head is larger than the tunnel reads')
    }
    this.begin(this.events.head(head))
    return at + (head.length - before)
  }

  private begin(framing: BodyFraming): void {
    switch (framing.kind) {
      case 'none':
        this.events.end()
        return
      case 'raw':
        this.state = State.Raw
        return
      case 'length':
        if (framing.length === 0) return this.events.end()
        this.state = State.Length
        this.remaining = framing.length
        return
      case 'chunked':
        this.state = State.ChunkSize
        return
      case 'until-close':
        this.state = State.UntilClose
    }
  }

  /** Reads body bytes; returns where it stopped. State Head afterwards means the body ended. */
  private readBody(chunk: Buffer, at: number): number {
    switch (this.state) {
      case State.UntilClose:
        this.events.data(chunk.subarray(at))
        return chunk.length
      case State.Length:
      case State.ChunkData: {
        const take = Math.min(this.remaining, chunk.length - at)
        this.events.data(chunk.subarray(at, at + take))
        this.remaining -= take
        if (this.remaining === 0) {
          this.state = this.state === State.Length ? State.Head : State.ChunkDataEnd
        }
        return at + take
      }
      case State.ChunkDataEnd:
        return this.readLine(chunk, at, line => {
          if (line.length !== 0) throw new FramingError(400, 'a chunk is longer than its size')
          this.state = State.ChunkSize
        })
      case State.ChunkSize:
        return this.readLine(chunk, at, line => {
          const match = /^([0-9a-fA-F]{1,12})[ \t]*(?:;[\t\x20-\x7e\x80-\xff]*)?$/.exec(line)
          if (match === null) throw new FramingError(400, 'a chunk size is not hexadecimal')
          this.remaining = parseInt(match[1], 16)
          this.state = this.remaining === 0 ? State.Trailers : State.ChunkData
        })
      default:
        // Trailer fields until an empty line.
        return this.readLine(chunk, at, line => {
          if (line.length === 0) this.state = State.Head
        })
    }
  }

  /** Reads one CRLF-ended line, maybe across chunks, then calls `done` with it. */
  private readLine(chunk: Buffer, at: number, done: (line: string) => void): number {
    const lf = chunk.indexOf(0x0a, at)
    const piece = chunk.subarray(at, lf === -1 ? chunk.length : lf + 1)
    const line = this.partial === undefined ? piece : Buffer.concat([this.partial, piece])
    if (lf === -1) {
      if (line.length > MAX_CHUNK_LINE) throw new FramingError(400, 'a chunk line is too long')
      this.partial = Buffer.from(line)
      return chunk.length
    }
    this.partial = undefined
    if (line.length < 2 || line[line.length - 2] !== 0x0d) {
      throw new FramingError(400, 'a chunk line does not end in CRLF')
    }
    done(line.subarray(0, line.length - 2).toString('latin1'))
    return lf + 1
  }
}
