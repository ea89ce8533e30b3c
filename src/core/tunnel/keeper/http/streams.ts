/**
 * How the HTTP layer moves bytes between the channel and the app without losing any: waiting
 * for a full side to drain, and closing each side only after what was written to it has gone.
 */
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'

/** Backpressure: `reader` stops until `writer` has sent what it holds, then resumes if `still()`. */
export function pauseUntilDrained(reader: Duplex, writer: Duplex, still: () => boolean): void {
  if (reader.isPaused()) return
  reader.pause()
  writer.once('drain', () => {
    if (still()) reader.resume()
  })
}

/**
 * Ends an SSH channel gently: ssh2 sends EOF on end(), and CLOSE only when told, so CLOSE is
 * sent once every byte has gone out (its destroy() would drop what waits for the SSH window).
 */
export function endChannel(channel: Duplex): void {
  if (channel.writableEnded) return
  channel.end()
  const close = () => (channel as Duplex & { close?: () => void }).close?.()
  if (channel.writableFinished) close()
  else channel.once('finish', close)
}

/** Closes the app's socket once what is still on its way to the app has been written. */
export function closeGently(app: Socket): void {
  if (app.writableLength === 0) app.destroy()
  else app.end(() => app.destroy())
}
