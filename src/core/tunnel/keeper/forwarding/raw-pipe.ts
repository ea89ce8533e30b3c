/**
 * The raw protocol handler: a forwarded connection piped byte for byte to its entry's local
 * `HOST:PORT`, as fast as a pipe goes. The order in which the two sides are closed is what keeps
 * large answers whole; see below.
 */
import type { Socket } from 'node:net'
import type { ClientChannel } from 'ssh2'
import type { ExposeEntry } from '../../protocol.js'
import type { ForwardContext } from './forward-context.js'

/** Pipes an accepted channel and a connected local socket into each other until both close. */
export function pipeRaw(
  channel: ClientChannel,
  local: Socket,
  entry: ExposeEntry,
  context: ForwardContext
): void {
  context.served(entry)
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
    if (channel.writableFinished) channel.close()
    else channel.once('finish', () => channel.close())
  })
  channel.pipe(local).pipe(channel)
  // The app ended its side (after pipe has ended the channel, which sent EOF): with nothing
  // left to send, close the channel now, so EOF and CLOSE leave in one write instead of two
  // (the 'close' above comes a turn later). The local socket does not stay half-open (Node's
  // default), so nothing could come back on it anyway; data still on its way to the app is
  // not cut (the channel's 'close' above ends the local socket gently).
  local.once('end', () => {
    if (channel.writableLength === 0) channel.close()
  })
}
