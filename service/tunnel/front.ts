/**
 * The HTTP front: a plain TCP server on a loopback port that reads a request's head, picks the
 * forward from its `Host` header (`<name>-<user>.localhost`), and from then on pipes the raw
 * connection, bytes unchanged, through a `forwarded-tcpip` channel to the client's local port.
 * HTTP is only read to route; the tunnel client's app answers everything else.
 */
import { createServer, type Server, type Socket } from 'node:net'
import type { Duplex } from 'node:stream'

/** Longest request head read before routing; a bigger one is refused with 431. */
const MAX_HEAD_BYTES = 16 * 1024
/** A connection that sends no complete request head in this time is closed. */
const HEAD_TIMEOUT_MS = 10_000

export interface FrontRoute {
  /** Opens a channel to the tunnel client for this connection. */
  open(remoteAddress: string, remotePort: number): Promise<Duplex>
}

/** Short plain-text answers the front gives itself; the connection closes after them. */
function answer(socket: Socket, status: number, reason: string, message: string): void {
  const body = `${message}\n`
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\n` +
      'Content-Type: text/plain; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body
  )
}

/** The Host header of a request head, without the port; undefined if there is none. */
export function hostOf(head: string): string | undefined {
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':')
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === 'host') {
      const value = line
        .slice(colon + 1)
        .trim()
        .toLowerCase()
      return value.replace(/:\d+$/, '')
    }
  }
  return undefined
}

/** Echoes a host name in a message only when it is plainly a host name. */
const shown = (host: string): string => (/^[a-z0-9.-]{1,253}$/.test(host) ? host : '(that host)')

export interface Front {
  server: Server
  /** Ends every open connection, so closing the server does not wait for them. */
  destroyConnections(): void
}

export function createFront(route: (host: string) => FrontRoute | undefined): Front {
  const sockets = new Set<Socket>()
  const server = createServer(socket => {
    sockets.add(socket)
    // As on the SSH side (tunnel.ts): no Nagle delay on the answers passed back.
    socket.setNoDelay(true)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
    socket.setTimeout(HEAD_TIMEOUT_MS, () => socket.destroy())
    let head = Buffer.alloc(0)

    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk])
      const end = head.indexOf('\r\n\r\n')
      if (end === -1) {
        if (head.length > MAX_HEAD_BYTES) {
          socket.off('data', onData)
          answer(socket, 431, 'Request Header Fields Too Large', 'Request head too large')
        }
        return
      }
      socket.off('data', onData)
      socket.pause()
      socket.setTimeout(0)
      const host = hostOf(head.subarray(0, end).toString('latin1'))
      if (host === undefined) {
        answer(socket, 400, 'Bad Request', 'No Host header: the front routes on it')
        return
      }
      const target = route(host)
      if (target === undefined) {
        answer(socket, 502, 'Bad Gateway', `No tunnel is open for ${shown(host)}`)
        return
      }
      target.open(socket.remoteAddress ?? '127.0.0.1', socket.remotePort ?? 0).then(
        channel => {
          channel.on('error', () => socket.destroy())
          socket.on('close', () => channel.destroy())
          channel.write(head)
          socket.pipe(channel).pipe(socket)
        },
        () => answer(socket, 502, 'Bad Gateway', `The tunnel client for ${host} did not connect`)
      )
    }
    socket.on('data', onData)
  })
  return {
    server,
    destroyConnections: () => {
      for (const socket of sockets) socket.destroy()
    }
  }
}
