/**
 * A host name lookup for the keeper's local connections that asks the system at most once a
 * second per name. Every connection the server opens on a forward becomes a new local TCP
 * connection, and Node resolves the entry's host (`localhost` by default) for each one on its
 * thread pool: in the tunnel benchmark's 200 small requests that lookup cost more CPU time than
 * the rest of the keeper's work per request. A second is long enough to serve a burst of
 * requests from one answer, and short enough that a service container that comes back at
 * another address is found again at once. Failures are not kept: the next connection asks anew.
 */
import { lookup as systemLookup, type LookupAddress, type LookupAllOptions } from 'node:dns'
import type { LookupFunction } from 'node:net'

export const LOOKUP_TTL_MS = 1_000

type LookupAll = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void
) => void

interface CachedLookup {
  at: number
  addresses: LookupAddress[]
}

export function cachedLookup(
  lookupAll: LookupAll = systemLookup,
  now: () => number = Date.now,
  ttlMs: number = LOOKUP_TTL_MS
): LookupFunction {
  const answers = new Map<string, CachedLookup>()
  /** Connections that wait for the same answer share one lookup. */
  const pending = new Map<
    string,
    Array<(error: Error | null, addresses: LookupAddress[]) => void>
  >()

  const resolve = (
    hostname: string,
    options: { family?: number | string; hints?: number },
    done: (error: Error | null, addresses: LookupAddress[]) => void
  ): void => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family
    const key = `${family ?? 0}/${options.hints ?? 0}/${hostname}`
    const known = answers.get(key)
    if (known !== undefined && now() - known.at < ttlMs) return done(null, known.addresses)
    const waiting = pending.get(key)
    if (waiting !== undefined) return void waiting.push(done)
    pending.set(key, [done])
    const lookupOptions: LookupAllOptions = { all: true }
    if (typeof family === 'number') lookupOptions.family = family
    if (options.hints !== undefined) lookupOptions.hints = options.hints
    lookupAll(hostname, lookupOptions, (error, addresses) => {
      const callbacks = pending.get(key) ?? []
      pending.delete(key)
      if (error === null) answers.set(key, { at: now(), addresses })
      else answers.delete(key)
      for (const callback of callbacks) callback(error, addresses)
    })
  }

  // net.connect asks for every address (`all`) when it tries them in turn (autoSelectFamily,
  // Node's default), and for one otherwise.
  return ((hostname, options, callback) =>
    resolve(hostname, options, (error, addresses) => {
      if (options.all === true) return void callback(error, addresses as never)
      const first = addresses?.[0]
      callback(error, first?.address ?? '', first?.family ?? 0)
    })) as LookupFunction
}
