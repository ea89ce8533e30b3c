/**
 * One request and its answer on a forwarded connection: what was sent, what came back, and the
 * record the request log gets once it is over.
 */
import type { RequestOutcome, RequestRecord } from '../../request-log/record.js'
import type { RequestHead } from './hooks.js'
import type { SentAnswer } from './own-answers.js'

/** The first `limit` bytes of a body, and whether there were more. */
class BodyCapture {
  private readonly parts: Buffer[] = []
  private size = 0
  truncated = false

  constructor(private readonly limit: number) {}

  add(bytes: Buffer): void {
    if (this.limit <= 0) return
    const room = this.limit - this.size
    if (bytes.length > room) this.truncated = true
    if (room <= 0) return
    // Copied: the chunk it came in is the connection's buffer, reused once written.
    const kept = Buffer.from(bytes.subarray(0, room))
    this.parts.push(kept)
    this.size += kept.length
  }

  bytes(): Buffer {
    return Buffer.concat(this.parts, this.size)
  }
}

export class Exchange {
  readonly startedAt = Date.now()
  bytesIn: number
  bytesOut = 0
  status: number | undefined
  responseHeaders: [string, string][] = []
  /** The bytes the tunnel process answers itself, for a request the app never sees. */
  ownAnswer: Buffer | undefined
  outcome: RequestOutcome = 'forwarded'
  /** The request asks to leave HTTP (Upgrade, CONNECT): later requests wait for its answer. */
  switches = false
  /** Answered by the gate's or the proof's decision (RequestRecord.tunnelAnswered). */
  private tunnelAnswered = false
  /** Answered from its head alone: its body was never read, so its size is what it declared. */
  private bodyUnread = false
  private recorded = false
  private readonly requestBody: BodyCapture
  private readonly responseBody: BodyCapture

  constructor(
    /** As recorded: after the gate's rewrite when it was forwarded. */
    public request: RequestHead,
    headBytes: number,
    private readonly captureBytes: number,
    /** The forwarded connection it came on. */
    private readonly connection?: number
  ) {
    this.bytesIn = headBytes
    this.requestBody = new BodyCapture(captureBytes)
    this.responseBody = new BodyCapture(captureBytes)
  }

  get forwarded(): boolean {
    return this.ownAnswer === undefined
  }

  /**
   * The tunnel process answers this request itself, with `status`, as `outcome`; recorded as
   * sent (fields, and the body as far as bodies are kept). `decided`: by the gate's or the
   * proof's decision, from the request's head alone.
   */
  answerLocally(
    answer: SentAnswer,
    status: number,
    outcome: RequestOutcome,
    decided = false
  ): void {
    this.ownAnswer = answer.bytes
    this.status = status
    this.outcome = outcome
    this.responseHeaders = answer.headers
    this.responseBody.add(answer.body)
    this.tunnelAnswered = decided
    this.bodyUnread = decided
  }

  requestData(bytes: Buffer): void {
    this.requestBody.add(bytes)
  }

  responseData(bytes: Buffer): void {
    this.responseBody.add(bytes)
  }

  /** The record, once: later calls (a connection closing after the answer) return undefined. */
  take(): RequestRecord | undefined {
    if (this.recorded) return undefined
    this.recorded = true
    const record: RequestRecord = {
      startedAt: this.startedAt,
      entry: this.request.entry,
      ...(this.request.client !== undefined && { client: this.request.client }),
      ...(this.connection !== undefined && { connection: this.connection }),
      method: this.request.method,
      target: this.request.target,
      httpVersion: this.request.httpVersion,
      requestHeaders: this.request.headers,
      ...(this.status !== undefined && { status: this.status }),
      responseHeaders: this.responseHeaders,
      durationMs: Date.now() - this.startedAt,
      bytesIn: this.bytesIn,
      bytesOut: this.bytesOut,
      outcome: this.outcome
    }
    if (this.tunnelAnswered) record.tunnelAnswered = true
    if (this.captureBytes > 0) {
      if (!this.bodyUnread) record.requestBody = this.requestBody.bytes()
      record.responseBody = this.responseBody.bytes()
      record.bodyTruncated = {
        request: this.requestBody.truncated,
        response: this.responseBody.truncated
      }
    }
    return record
  }
}
