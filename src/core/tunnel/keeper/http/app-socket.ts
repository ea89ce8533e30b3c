/**
 * The app's side of one HTTP connection (http-connection.ts): a TCP connection to the entry's
 * `HOST:PORT`, opened at the first request that goes to the app, and what it tells.
 */
import { connect as connectTcp, type Socket } from 'node:net'
import type { ExposeEntry } from '../../protocol.js'
import type { ForwardContext } from '../forwarding/forward-context.js'

export interface AppEvents {
  data(chunk: Buffer): void
  /** The app closed its side. */
  end(): void
  /** The connection failed after it was made. */
  lost(): void
  /** The app did not accept the connection: `code` is the OS error code (ECONNREFUSED, …). */
  refused(code: string): void
}

export function openApp(entry: ExposeEntry, context: ForwardContext, events: AppEvents): Socket {
  const app = connectTcp({
    host: entry.host,
    port: entry.port,
    noDelay: true,
    lookup: context.lookup
  })
  context.track(app)
  let connected = false
  app.once('connect', () => {
    connected = true
    context.served(entry)
  })
  app.on('data', (chunk: Buffer) => {
    context.bytes('bytesOut', chunk.length)
    events.data(chunk)
  })
  app.on('end', () => events.end())
  app.on('error', error => {
    if (connected) events.lost()
    else events.refused((error as NodeJS.ErrnoException).code ?? error.message)
  })
  return app
}
