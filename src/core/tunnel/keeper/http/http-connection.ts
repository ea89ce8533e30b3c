/**
 * One forwarded connection that speaks HTTP/1.x, between the SSH channel and the app. Bytes go
 * through unchanged (unless the gate rewrites a request's target); this layer only reads where
 * each request and answer begins and ends, so it keeps what a raw pipe keeps: keep-alive and
 * pipelining (answers come back in request order), chunked bodies, 100-continue (interim answers
 * pass through), Upgrade (raw both ways after 101), streamed answers, and backpressure both ways.
 * One app connection per channel, opened at the first request that goes to the app.
 */
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type { ExposeEntry } from '../../protocol.js'
import type { ForwardContext } from '../forwarding/forward-context.js'
import { openApp } from './app-socket.js'
import type { Exchange } from './exchange.js'
import { FramingError, MAX_HEAD_BYTES, MessageReader, type BodyFraming } from './framing.js'
import type { HttpHooks } from './hooks.js'
import { sentAnswer, unreachableAnswer } from './own-answers.js'
import { decideRequest, malformedRequest } from './request-decision.js'
import * as rules from './rules.js'
import { closeGently, endChannel, pauseUntilDrained } from './streams.js'

/** Numbers the connections of this process, for the request log (a challenge's connection). */
let connectionsOpened = 0

export class HttpConnection {
  private app: Socket | undefined
  /** Requests waiting for their answer, in order. */
  private readonly queue: Exchange[] = []
  /** The request whose body is being read. */
  private receiving: Exchange | undefined
  /** No more requests are read: an own answer, or an error, ends the connection. */
  private closing = false
  /** An interim (1xx) answer is passing: its end does not end the exchange. */
  private interim = false
  private readonly requests: MessageReader
  private readonly answers: MessageReader
  private readonly id = ++connectionsOpened

  constructor(
    private readonly channel: Duplex,
    private readonly entry: ExposeEntry,
    private readonly client: string | undefined,
    private readonly context: ForwardContext,
    private readonly hooks: HttpHooks
  ) {
    this.requests = new MessageReader(
      {
        head: bytes => this.requestHead(bytes),
        body: bytes => {
          this.receiving!.bytesIn += bytes.length
          this.toApp(bytes)
        },
        data: bytes => this.receiving!.requestData(bytes),
        end: () => this.requestEnd(),
        raw: bytes => this.toApp(bytes)
      },
      MAX_HEAD_BYTES
    )
    this.answers = new MessageReader(
      {
        head: bytes => this.answerHead(bytes),
        body: bytes => {
          this.queue[0].bytesOut += bytes.length
          this.toClient(bytes)
        },
        data: bytes => this.queue[0].responseData(bytes),
        end: () => this.answerEnd(),
        raw: bytes => this.toClient(bytes)
      },
      MAX_HEAD_BYTES
    )
  }

  /** Starts with the bytes already read from the channel (to tell HTTP from the rest). */
  start(first: Buffer): void {
    const { channel } = this
    this.context.track(channel)
    channel.on('data', (chunk: Buffer) => this.fromClient(chunk))
    // The client is done sending: the app is told, and its answers still come back.
    channel.on('end', () => {
      if (this.app === undefined) this.endBoth()
      else if (!this.closing) this.app.end()
    })
    channel.on('error', () => this.app?.destroy())
    // As on the raw path: what is still on its way to the app is not cut.
    channel.on('close', () => {
      this.recordAll()
      if (this.app !== undefined) closeGently(this.app)
    })
    this.fromClient(first, false)
    channel.resume()
  }

  private fromClient(chunk: Buffer, count = true): void {
    if (count) this.context.bytes('bytesIn', chunk.length)
    if (this.closing) return
    try {
      this.requests.feed(chunk)
    } catch (error) {
      this.unreadable(error)
    }
    // Part of a head held here: counted, and on the clock (head-watch.ts).
    const partial = this.requests.partialHeadBytes
    if (partial > 0) this.context.heads?.holding(this.channel, partial)
  }

  /** Nothing in progress (every request read and answered): the next head is on the clock. */
  private idle(): void {
    if (this.queue.length > 0 || this.receiving !== undefined || this.closing) return
    this.context.heads?.wait(this.channel)
  }

  private requestHead(bytes: Buffer): BodyFraming {
    this.context.heads?.done(this.channel)
    const { entry, client, hooks, id } = this
    const { exchange, framing, toApp } = decideRequest(bytes, entry.name, client, hooks, id)
    this.receiving = exchange
    this.queue.push(exchange)
    if (toApp !== undefined) {
      this.toApp(toApp)
      return framing
    }
    // Answered here: the connection ends after it, so no later request goes unseen.
    this.stopReading()
    this.writeOwnAnswer()
    return { kind: 'none' }
  }

  private requestEnd(): void {
    // Bytes after a request to switch protocols are held until the app says whether it did.
    if (this.receiving?.switches === true) this.requests.pause()
    this.receiving = undefined
    this.idle()
  }

  private answerHead(bytes: Buffer): BodyFraming {
    const exchange = this.queue[0]
    if (exchange === undefined || !exchange.forwarded) {
      throw new FramingError(502, 'the app answered a request it was not sent')
    }
    const head = rules.parseHead(bytes)
    const status = rules.parseStatus(head.startLine)
    exchange.bytesOut += bytes.length
    this.toClient(bytes)
    if (status === 101 && exchange.switches) {
      this.record(exchange, status, head.headers)
      return this.switchToRaw()
    }
    if (status < 200) {
      this.interim = true
      return { kind: 'none' }
    }
    exchange.status = status
    exchange.responseHeaders = head.headers
    const framing = rules.responseFraming(exchange.request.method, status, head.headers)
    if (framing.kind === 'raw') {
      this.record(exchange, status, head.headers)
      return this.switchToRaw()
    }
    return framing
  }

  private answerEnd(): void {
    if (this.interim) {
      this.interim = false
      return
    }
    const exchange = this.queue.shift()!
    this.finish(exchange)
    // The app did not switch: the requests held after it are read as HTTP again.
    if (exchange.switches) {
      try {
        this.requests.resume()
      } catch (error) {
        this.unreadable(error)
      }
    }
    this.writeOwnAnswer()
    this.idle()
  }

  /** The app switched protocols: from now on both sides are piped unchanged. */
  private switchToRaw(): BodyFraming {
    this.context.heads?.done(this.channel)
    this.requests.passRaw()
    return { kind: 'raw' }
  }

  private record(exchange: Exchange, status: number, headers: [string, string][]): void {
    exchange.status = status
    exchange.responseHeaders = headers
    this.queue.splice(this.queue.indexOf(exchange), 1)
    this.finish(exchange)
  }

  private finish(exchange: Exchange): void {
    const record = exchange.take()
    if (record !== undefined) this.hooks.record?.(record)
  }

  /** Every request still open is recorded as it stands (cut off, or never answered). */
  private recordAll(): void {
    for (const exchange of this.queue.splice(0)) this.finish(exchange)
  }

  /** An own answer whose turn has come (every answer before it written) goes out, then the end. */
  private writeOwnAnswer(): void {
    const next = this.queue[0]
    if (next?.ownAnswer === undefined) return
    this.queue.shift()
    next.bytesOut += next.ownAnswer.length
    this.channel.write(next.ownAnswer)
    this.finish(next)
    this.endBoth()
  }

  private stopReading(): void {
    this.closing = true
    this.requests.pause()
  }

  /** Bytes from the client that are not HTTP/1.1: 400 (or 431) in turn, unless a body was cut. */
  private unreadable(error: unknown): void {
    const cutBody = this.receiving !== undefined && this.receiving.forwarded
    if (!(error instanceof FramingError) || cutBody) return this.destroyBoth()
    const exchange = malformedRequest(this.entry.name, this.client, error, this.id)
    this.queue.push(exchange)
    this.stopReading()
    this.writeOwnAnswer()
  }

  private connectApp(): Socket {
    this.app = openApp(this.entry, this.context, {
      data: chunk => {
        try {
          this.answers.feed(chunk)
        } catch {
          // An answer that does not frame as HTTP cannot be passed on in step with its request.
          this.destroyBoth()
        }
      },
      end: () => {
        this.answers.senderEnded()
        this.writeOwnAnswer()
        this.endBoth()
      },
      lost: () => this.destroyBoth(),
      refused: code => this.unreachable(code)
    })
    return this.app
  }

  /** The app did not accept the connection: the first request gets the 502 page, then the end. */
  private unreachable(code: string): void {
    this.context.localError(this.entry, code)
    this.stopReading()
    const waiting = this.queue.splice(0)
    for (const exchange of waiting) exchange.outcome = 'unreachable'
    const first = waiting.shift()
    if (first !== undefined) {
      const answer = unreachableAnswer(this.entry, code)
      first.answerLocally(sentAnswer(answer), answer.status, 'unreachable')
      this.queue.push(first)
    }
    for (const exchange of waiting) this.finish(exchange)
    this.writeOwnAnswer()
    this.endBoth()
  }

  private toApp(bytes: Buffer): void {
    const app = this.app ?? this.connectApp()
    // Once closing, the client's further bytes are not read: the channel stays paused.
    if (!app.write(bytes)) pauseUntilDrained(this.channel, app, () => !this.closing)
  }

  private toClient(bytes: Buffer): void {
    if (!this.channel.write(bytes)) pauseUntilDrained(this.app!, this.channel, () => true)
  }

  /** Ends the connection gently: each side gets what was written to it first. */
  private endBoth(): void {
    this.closing = true
    this.app?.end()
    endChannel(this.channel)
  }

  private destroyBoth(): void {
    this.closing = true
    this.recordAll()
    this.app?.destroy()
    this.channel.destroy()
  }
}
