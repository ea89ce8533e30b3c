/**
 * Main, once the tunnel is ready: is each entry's app listening yet? Only a warning when not:
 * apps often start after the tunnel, and the keeper answers 502 until they do.
 */
import { connect } from 'node:net'
import type { ExposeEntry } from '../protocol.js'

const CONNECT_TIMEOUT_MS = 1_000

/** The entries whose HOST:PORT did not take a connection, each with why; all tried at once. */
export async function appsNotListening(
  entries: readonly ExposeEntry[],
  timeoutMs = CONNECT_TIMEOUT_MS
): Promise<{ entry: ExposeEntry; why: string }[]> {
  const results = await Promise.all(
    entries.map(async entry => ({ entry, why: await tryConnect(entry, timeoutMs) }))
  )
  return results.filter((r): r is { entry: ExposeEntry; why: string } => r.why !== undefined)
}

/** The warning for one entry: where the app was looked for, and what that means for its URL. */
export function appWarning(
  { entry, why }: { entry: ExposeEntry; why: string },
  label: (name: string) => string
): string {
  const address = entry.host.includes(':')
    ? `[${entry.host}]:${entry.port}`
    : `${entry.host}:${entry.port}`
  return (
    `Nothing answers at ${address} for "${entry.name}" yet (${why}): until the app listens there, ` +
    `its URL gets 502 from the tunnel. Start the app before this step, or check the address in ${label('expose')}.`
  )
}

/** Undefined when a connection was made (and closed at once); else why not. */
function tryConnect({ host, port }: ExposeEntry, timeoutMs: number): Promise<string | undefined> {
  return new Promise(resolve => {
    const socket = connect({ host, port })
    const done = (why: string | undefined) => {
      clearTimeout(timer)
      socket.destroy()
      resolve(why)
    }
    const timer = setTimeout(() => done(`no connection within ${timeoutMs} ms`), timeoutMs)
    socket.once('connect', () => done(undefined))
    socket.once('error', (error: NodeJS.ErrnoException) =>
      done(
        error.code === 'ECONNREFUSED' ? 'connection refused' : (error.code ?? 'connection failed')
      )
    )
  })
}
