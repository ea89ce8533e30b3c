/**
 * What serving one forwarded connection needs from the keeper (handlers.ts builds it): its own
 * file, so that the protocol handlers (raw-pipe.ts, http/*) and forwarded-connection.ts, which
 * picks one, do not import each other.
 */
import type { LookupFunction, Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type { ExposeEntry } from '../../protocol.js'
import type { HeadWatch } from '../http/head-watch.js'
import type { HttpHooks } from '../http/hooks.js'

/** What serving a connection needs from the keeper: its entries, counters and bookkeeping. */
export interface ForwardContext {
  entries: ExposeEntry[]
  lookup: LookupFunction
  /** A connection reached its entry's local app. */
  served(entry: ExposeEntry): void
  bytes(field: 'bytesIn' | 'bytesOut', count: number): void
  /** The local app could not be reached: `code` is the OS error code (ECONNREFUSED, …). */
  localError(entry: ExposeEntry, code: string): void
  /** Open streams, destroyed when the keeper leaves. */
  track(stream: Duplex | Socket): void
  /**
   * What reads HTTP (request log, gate, proof) on a new connection to `entry`; absent, or
   * undefined for that entry: the connection is piped raw.
   */
  http?(entry: ExposeEntry): HttpHooks | undefined
  /** Bounds the time and memory of connections that send no whole request head; none: unbounded. */
  heads?: HeadWatch
}
