/**
 * An http.Agent whose connections are `forwarded-tcpip` channels to one forward. With keep-alive
 * on, a channel whose answer is complete waits in the pool for the next request to that forward,
 * as a reverse proxy keeps its connections to a backend open.
 */
import { Agent, type AgentOptions } from 'node:http'
import type { Socket } from 'node:net'
import { Duplex } from 'node:stream'
import type { FrontRoute } from './front.js'

/** What the front adds to a request's options: the connection the request came on. */
interface ChannelOptions {
  originAddress?: string
  originPort?: number
}

const nothing = (): void => undefined

/**
 * A channel that is still opening, handed out at once as the request's socket: writes wait for the
 * channel. Returned synchronously, as http's client expects of createConnection (and so do the
 * request interceptors some tests install, which pass a request through to what it returns).
 */
class OpeningChannel extends Duplex {
  private channel: Duplex | undefined
  private readonly waiting: Array<(channel: Duplex) => void> = []
  private ended = false

  constructor(opening: Promise<Duplex>) {
    super({ allowHalfOpen: true })
    opening.then(
      channel => this.opened(channel),
      (error: unknown) => this.destroy(error instanceof Error ? error : new Error(String(error)))
    )
  }

  private opened(channel: Duplex): void {
    if (this.destroyed) {
      channel.destroy()
      return
    }
    this.channel = channel
    channel.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) channel.pause()
    })
    channel.on('end', () => {
      this.endReading()
      // A kept channel the tunnel client ended while it waited in the pool can carry no further
      // request: leave the pool now, rather than have the next request written into it.
      if (!(this as { _httpMessage?: unknown })._httpMessage) this.destroy()
    })
    channel.on('error', (error: Error) => this.destroy(error))
    // A channel the tunnel client closed leaves the agent's pool through this close.
    channel.on('close', () => {
      this.endReading()
      this.destroy()
    })
    for (const run of this.waiting.splice(0)) run(channel)
  }

  private endReading(): void {
    if (this.ended) return
    this.ended = true
    this.push(null)
  }

  private whenOpen(run: (channel: Duplex) => void): void {
    if (this.channel === undefined) this.waiting.push(run)
    else run(this.channel)
  }

  override _read(): void {
    this.channel?.resume()
  }

  override _write(chunk: Buffer, encoding: BufferEncoding, done: (error?: Error) => void): void {
    this.whenOpen(channel => channel.write(chunk, encoding, error => done(error ?? undefined)))
  }

  override _final(done: () => void): void {
    this.whenOpen(channel => {
      channel.end()
      done()
    })
  }

  override _destroy(error: Error | null, done: (error: Error | null) => void): void {
    this.channel?.destroy()
    done(error)
  }

  /**
   * The socket methods http's client, its Agent and interceptors call that a channel lacks.
   * Keep-alive probes, Nagle and event-loop references mean nothing inside an SSH connection.
   */
  setKeepAlive = nothing
  setNoDelay = nothing
  setTimeout = nothing
  ref = nothing
  unref = nothing
  address = (): Record<string, never> => ({})
}

export class ChannelAgent extends Agent {
  constructor(
    private readonly target: FrontRoute,
    options: AgentOptions = {}
  ) {
    super({ keepAlive: true, ...options })
  }

  createConnection(options: ChannelOptions): Socket {
    const opening = this.target.open(options.originAddress ?? '127.0.0.1', options.originPort ?? 0)
    return new OpeningChannel(opening) as unknown as Socket
  }
}
