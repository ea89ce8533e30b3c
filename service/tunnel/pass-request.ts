/**
 * One request passed through the front to a tunnel client and its answer passed back, as a
 * reverse proxy does: the head re-serialised without hop-by-hop fields, the body streamed, an
 * answer cut off upstream cut off here too.
 */
import {
  request,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse
} from 'node:http'
import type { ChannelAgent } from './channel-agent.js'
import { forwardedHeaders, hasBody } from './proxy-headers.js'

/** Short plain-text answers the front gives itself. */
export function answer(response: ServerResponse, status: number, message: string): void {
  const body = `${message}\n`
  response.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(body)
  })
  response.end(body)
}

/**
 * Sends `incoming` over a channel of `agent` and writes the answer to `response`. A request
 * without a body that fails on a kept channel before any answer is sent once more on a new one:
 * the tunnel client may have closed that channel just as it was taken from the pool.
 */
export function passRequest(
  incoming: IncomingMessage,
  response: ServerResponse,
  agent: ChannelAgent,
  host: string,
  mayRetry = !hasBody(incoming)
): void {
  const socket = incoming.socket
  const outgoing = request({
    agent,
    method: incoming.method,
    path: incoming.url,
    headers: forwardedHeaders(incoming.rawHeaders, true) as unknown as OutgoingHttpHeaders,
    setHost: false,
    // Read by ChannelAgent: the channel names the connection whose request opened it.
    ...{ originAddress: socket.remoteAddress, originPort: socket.remotePort }
  })
  let answered = false
  outgoing.on('response', upstream => {
    answered = true
    response.writeHead(
      upstream.statusCode ?? 502,
      upstream.statusMessage,
      forwardedHeaders(upstream.rawHeaders)
    )
    upstream.pipe(response)
    // An answer cut off upstream is cut off here too, not ended as if it were complete.
    upstream.on('close', () => {
      if (!upstream.complete) response.destroy()
    })
  })
  outgoing.on('error', () => {
    if (!answered && mayRetry && outgoing.reusedSocket && !response.destroyed) {
      passRequest(incoming, response, agent, host, false)
    } else if (response.headersSent) {
      response.destroy()
    } else {
      answer(response, 502, `The tunnel client for ${host} did not answer`)
    }
  })
  response.once('close', () => {
    if (!response.writableFinished) outgoing.destroy()
  })
  if (hasBody(incoming)) incoming.pipe(outgoing)
  else outgoing.end()
}
