/**
 * One connection the tunnel server opened on a forward: piped to its entry's local `HOST:PORT`.
 * The order in which the two sides are closed is what keeps large answers whole; see below.
 */
import { connect as connectTcp, type LookupFunction, type Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type { ClientChannel, TcpConnectionDetails } from 'ssh2'
import type { ExposeEntry } from '../protocol.js'

/** What serving a connection needs from the keeper: its entries, counters and bookkeeping. */
export interface ForwardContext {
  entries: ExposeEntry[]
  lookup: LookupFunction
  /** A connection reached its local app. */
  served(): void
  bytes(field: 'bytesIn' | 'bytesOut', count: number): void
  /** The local app could not be reached: `code` is the OS error code (ECONNREFUSED, …). */
  localError(entry: ExposeEntry, code: string): void
  /** Open streams, destroyed when the keeper leaves. */
  track(stream: Duplex | Socket): void
}

export function serveForwarded(
  details: TcpConnectionDetails,
  accept: () => ClientChannel,
  reject: () => void,
  context: ForwardContext
): void {
  const entry = context.entries.find(e => e.name === details.destIP.toLowerCase())
  if (entry === undefined) return reject()
  // No Nagle delay: small answers go out at once, as through OpenSSH. The host is looked up
  // at most once a second (lookup-cache.ts), not once per connection.
  const local = connectTcp({
    host: entry.host,
    port: entry.port,
    noDelay: true,
    lookup: context.lookup
  })
  let channel: ClientChannel | undefined
  local.once('connect', () => {
    channel = accept()
    context.served()
    context.track(local)
    context.track(channel)
    channel.on('data', (chunk: Buffer) => context.bytes('bytesIn', chunk.length))
    local.on('data', (chunk: Buffer) => context.bytes('bytesOut', chunk.length))
    // Each side's end reaches the other through pipe, after its data. A side that closes
    // must not cut what is still on its way: ssh2's destroy() closes the channel at once
    // and drops data that waits for the SSH window, which truncated large answers.
    channel.on('error', () => local.destroy())
    channel.on('close', () => {
      if (local.writableLength === 0) local.destroy()
      else local.end(() => local.destroy())
    })
    local.on('close', () => {
      const opened = channel!
      if (opened.writableFinished) opened.close()
      else opened.once('finish', () => opened.close())
    })
    channel.pipe(local).pipe(channel)
    // The app ended its side (after pipe has ended the channel, which sent EOF): with nothing
    // left to send, close the channel now, so EOF and CLOSE leave in one write instead of two
    // (the 'close' above comes a turn later). The local socket does not stay half-open (Node's
    // default), so nothing could come back on it anyway; data still on its way to the app is
    // not cut (the channel's 'close' above ends the local socket gently).
    local.once('end', () => {
      if (channel!.writableLength === 0) channel!.close()
    })
  })
  local.on('error', error => {
    if (channel === undefined) {
      // The app is not listening (yet): this one connection fails, the tunnel stays up.
      context.localError(entry, (error as NodeJS.ErrnoException).code ?? error.message)
      reject()
    } else {
      channel.destroy()
    }
  })
}
