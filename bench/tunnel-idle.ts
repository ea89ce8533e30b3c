/**
 * The tunnel process's memory with many idle public connections, each holding part of a request
 * head: what an attacker who opens connections and never finishes a head costs it. Through the
 * stand-in's raw TCP port, which passes bytes on as they come (as OpenSSH's `-R` does); the HTTP
 * front would read each head itself first. The keeper bounds these (keeper/http/head-watch.ts):
 * 60 s per head, and 8 MiB for all unfinished heads together, so IDLE_HEAD_BYTES is chosen for
 * IDLE_CONNECTIONS to stay just within that budget, and every connection is held, none closed.
 */
import { connect, type Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'

export interface IdleOutcome {
  rssKib: number
  /** Connections still open when the RSS was read. */
  open: number
}

/** Opens `count` connections to `port` on the loopback, each sending `headBytes` of a head. */
export async function idleConnectionsRss(
  port: number,
  host: string,
  { count, headBytes }: { count: number; headBytes: number },
  rssKib: () => Promise<number>
): Promise<IdleOutcome> {
  const start = `GET /idle HTTP/1.1\r\nHost: ${host}\r\nX-Pad: `
  const partial = start + 'x'.repeat(Math.max(0, headBytes - start.length))
  const sockets: Socket[] = []
  let open = 0
  try {
    // In batches, as clients arrive: not one burst of thousands of SYNs at the stand-in.
    for (let i = 0; i < count; i += 100) {
      const batch = Array.from({ length: Math.min(100, count - i) }, () => connectOne(port))
      for (const socket of await Promise.all(batch)) {
        sockets.push(socket)
        open += 1
        socket.once('close', () => (open -= 1))
        socket.write(partial)
      }
    }
    // Let the bytes reach the tunnel process and settle there.
    await sleep(2_000)
    const rss = await rssKib()
    return { rssKib: rss, open }
  } finally {
    for (const socket of sockets) socket.destroy()
  }
}

function connectOne(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => resolve(socket))
    socket.once('error', reject)
  })
}
