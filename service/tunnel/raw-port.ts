/**
 * A plain TCP port for one forward: every connection to it is passed, bytes unchanged and
 * without reading anything, through a `forwarded-tcpip` channel to the tunnel client, with the
 * connecting client's address. The HTTP front only passes HTTP; this carries anything, so tests
 * can show what the client does with bytes that are not HTTP.
 */
import { createServer, type AddressInfo, type Socket } from 'node:net'
import type { FrontRoute } from './front.js'

export interface RawPort {
  port: number
  close(): Promise<void>
}

/** Listens on a free loopback port; `route` is asked at each connection (the forward may go). */
export async function openRawPort(
  host: string,
  route: () => FrontRoute | undefined
): Promise<RawPort> {
  const sockets = new Set<Socket>()
  const server = createServer(socket => {
    sockets.add(socket)
    socket.setNoDelay(true)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
    socket.pause()
    const target = route()
    if (target === undefined) {
      socket.destroy()
      return
    }
    target.open(socket.remoteAddress ?? '127.0.0.1', socket.remotePort ?? 0).then(
      channel => {
        channel.on('error', () => socket.destroy())
        socket.on('close', () => channel.destroy())
        socket.pipe(channel).pipe(socket)
      },
      () => socket.destroy()
    )
  })
  await new Promise<void>(resolve => server.listen(0, host, resolve))
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>(resolve => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}
