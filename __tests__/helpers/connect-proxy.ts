import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export interface RecordingProxy {
  url: string
  /** The `host:port` of every CONNECT it was asked for, in order. */
  targets: string[]
  close: () => Promise<void>
}

/** A proxy on 127.0.0.1 that records where it was asked to tunnel, then refuses: enough to prove the route. */
export async function startRecordingProxy(): Promise<RecordingProxy> {
  const targets: string[] = []
  const proxy = createServer()
  proxy.on('connect', (request: IncomingMessage, socket: Socket) => {
    targets.push(request.url ?? '')
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n')
  })
  await new Promise<void>(resolve => proxy.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    targets,
    close: () => new Promise(resolve => proxy.close(() => resolve()))
  }
}
