/**
 * The HTTP front: an HTTP/1.1 reverse proxy on a loopback port, as the real server's muxer is.
 * Each request is routed by the first label of its own `Host`, not by the connection it came on,
 * so an edge proxy that reuses one connection for several tunnels reaches each of them. A request
 * is re-serialised (hop-by-hop fields dropped) onto a `forwarded-tcpip` channel to the tunnel
 * client; idle channels are kept per forward and reused, as a proxy keeps its backend connections.
 * An upgrade (WebSocket) gets a channel of its own, and after its head bytes pass unchanged.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { ChannelAgent } from './channel-agent.js'
import { answer, passRequest } from './pass-request.js'
import { requestHead } from './proxy-headers.js'

/** Longest request head the front reads; a bigger one is refused with 431. */
const MAX_HEAD_BYTES = 16 * 1024
/** A request whose head is not complete in this time is refused (408) and its connection closed. */
export const HEAD_TIMEOUT_MS = 10_000

export interface FrontRoute {
  /** Opens a channel to the tunnel client, naming the connection that caused it. */
  open(remoteAddress: string, remotePort: number): Promise<Duplex>
}

/** Echoes a host name in a message only when it is plainly a host name. */
const shown = (host: string): string => (/^[a-z0-9.-]{1,253}$/.test(host) ? host : '(that host)')

/** The Host of a request without its port, lower-case; undefined if it has none. */
const hostOf = (request: IncomingMessage): string | undefined =>
  request.headers.host?.trim().toLowerCase().replace(/:\d+$/, '')

function rawAnswer(socket: Socket, status: number, reason: string, message: string): void {
  const body = `${message}\n`
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}

export interface Front {
  server: Server
  /** Ends every open connection, so closing the server does not wait for them. */
  destroyConnections(): void
}

export function createFront(
  route: (host: string) => FrontRoute | undefined,
  // Shorter only in tests, which should not wait ten seconds to see the bound hold.
  headTimeoutMs = HEAD_TIMEOUT_MS
): Front {
  // One pool of channels per forward; a forward that goes takes its channels with it.
  const agents = new WeakMap<FrontRoute, ChannelAgent>()
  const agentFor = (target: FrontRoute): ChannelAgent => {
    let agent = agents.get(target)
    if (agent === undefined) {
      agent = new ChannelAgent(target)
      agents.set(target, agent)
    }
    return agent
  }
  const upgraded = new Set<Socket>()

  /** The target of a request, or the reason there is none (status and message). */
  const targetOf = (
    incoming: IncomingMessage
  ): { target: FrontRoute; host: string } | { status: number; message: string } => {
    const host = hostOf(incoming)
    if (host === undefined || host === '') {
      return { status: 400, message: 'No Host header: the front routes on it' }
    }
    const target = route(host)
    if (target === undefined)
      return { status: 502, message: `No tunnel is open for ${shown(host)}` }
    return { target, host }
  }

  /**
   * Passes one request on and resolves once its answer is over. Each client connection sends one
   * request at a time, as a Go server reads a connection's next request only after answering the
   * last: pipelined requests wait their turn instead of taking channels of their own.
   */
  const passOn = (incoming: IncomingMessage, response: ServerResponse): Promise<void> => {
    const over = new Promise<void>(resolve => response.once('close', resolve))
    const found = targetOf(incoming)
    if (!('target' in found)) {
      answer(response, found.status, found.message)
      return over
    }
    passRequest(incoming, response, agentFor(found.target), found.host)
    return over
  }

  const turns = new WeakMap<Socket, Promise<void>>()
  const onRequest = (incoming: IncomingMessage, response: ServerResponse): void => {
    // No Date of the front's own: what passes through carries only the app's.
    response.sendDate = false
    const socket = incoming.socket
    const turn = (turns.get(socket) ?? Promise.resolve()).then(() => passOn(incoming, response))
    turns.set(socket, turn)
  }

  const onUpgrade = (incoming: IncomingMessage, socket: Socket, head: Buffer): void => {
    socket.setTimeout(0)
    socket.on('error', () => socket.destroy())
    const found = targetOf(incoming)
    if (!('target' in found)) {
      const reason = found.status === 400 ? 'Bad Request' : 'Bad Gateway'
      return rawAnswer(socket, found.status, reason, found.message)
    }
    upgraded.add(socket)
    socket.on('close', () => upgraded.delete(socket))
    found.target.open(socket.remoteAddress ?? '127.0.0.1', socket.remotePort ?? 0).then(
      channel => {
        channel.on('error', () => socket.destroy())
        socket.on('close', () => channel.destroy())
        channel.write(requestHead(incoming))
        if (head.length > 0) channel.write(head)
        socket.pipe(channel).pipe(socket)
      },
      () =>
        rawAnswer(socket, 502, 'Bad Gateway', `The tunnel client for ${found.host} did not connect`)
    )
  }

  const server = createServer(
    {
      maxHeaderSize: MAX_HEAD_BYTES,
      headersTimeout: headTimeoutMs,
      // The bounds above are the front's; a long upload or a quiet keep-alive is the edge's call.
      requestTimeout: 0,
      keepAliveTimeout: 0,
      // Node checks the head bound on this beat: no later than a tenth of it past the bound.
      connectionsCheckingInterval: Math.min(1000, Math.max(10, headTimeoutMs / 10))
    },
    onRequest
  )
  server.on('upgrade', onUpgrade)
  // As on the SSH side (tunnel.ts): no Nagle delay on the answers passed back.
  server.on('connection', (socket: Socket) => socket.setNoDelay(true))
  return {
    server,
    destroyConnections: () => {
      server.closeAllConnections()
      for (const socket of upgraded) socket.destroy()
    }
  }
}
