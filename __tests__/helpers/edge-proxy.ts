/**
 * An HTTPS proxy (CONNECT) in front of the stand-in's edge, for URLs without a port: a real edge
 * listens on 443, the test's own Caddy on a free port. A runner's https_proxy sends every https
 * request to it; it tunnels `<label>.<edge domain>:443` to the edge's port and refuses anything
 * else, so nothing leaves the machine. It records each target it was asked for.
 */
import { createServer, type IncomingMessage } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import type { RunningEdge } from '../../service/edge/caddy.js'

export interface EdgeProxy {
  /** `http://127.0.0.1:<port>`, for https_proxy. */
  url: string
  /** The `host:port` of every CONNECT, in order. */
  targets: string[]
  close(): Promise<void>
}

export async function startEdgeProxy(edge: RunningEdge): Promise<EdgeProxy> {
  const targets: string[] = []
  const sockets = new Set<Socket>()
  const proxy = createServer()
  const suffix = `.${edge.publicDomain}:443`
  proxy.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
    const target = (request.url ?? '').toLowerCase()
    targets.push(target)
    sockets.add(client)
    client.on('close', () => sockets.delete(client))
    client.on('error', () => client.destroy())
    if (!target.endsWith(suffix)) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n')
      return
    }
    const upstream = connect(edge.port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      if (head.length > 0) upstream.write(head)
      client.pipe(upstream).pipe(client)
    })
    sockets.add(upstream)
    upstream.on('close', () => (sockets.delete(upstream), client.destroy()))
    upstream.on('error', () => client.destroy())
  })
  await new Promise<void>(resolve => proxy.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    targets,
    close: () =>
      new Promise(resolve => {
        for (const socket of sockets) socket.destroy()
        proxy.close(() => resolve())
      })
  }
}
