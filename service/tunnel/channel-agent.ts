/**
 * An http.Agent whose connections are `forwarded-tcpip` channels to one forward. With keep-alive
 * on, a channel whose answer is complete waits in the pool for the next request to that forward,
 * as a reverse proxy keeps its connections to a backend open.
 */
import { Agent, type AgentOptions } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type { FrontRoute } from './front.js'

/** What the front adds to a request's options: the connection the request came on. */
interface ChannelOptions {
  originAddress?: string
  originPort?: number
}

const nothing = (): void => undefined

/**
 * The socket methods http's client and Agent call that a channel lacks. Keep-alive probes, Nagle
 * and event-loop references mean nothing for a channel inside an SSH connection.
 */
function asSocket(channel: Duplex): Socket {
  return Object.assign(channel, {
    setKeepAlive: nothing,
    setNoDelay: nothing,
    setTimeout: nothing,
    ref: nothing,
    unref: nothing
  }) as unknown as Socket
}

export class ChannelAgent extends Agent {
  constructor(
    private readonly target: FrontRoute,
    options: AgentOptions = {}
  ) {
    super({ keepAlive: true, ...options })
  }

  createConnection(
    options: ChannelOptions,
    done: (error: Error | null, socket?: Socket) => void
  ): undefined {
    this.target.open(options.originAddress ?? '127.0.0.1', options.originPort ?? 0).then(
      channel => done(null, asSocket(channel)),
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error)))
    )
    return undefined
  }
}
