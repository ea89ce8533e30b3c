/**
 * What the keeper needs from the process it runs in (keeper/main.ts), and tests give it instead:
 * where its one report goes, the clock, randomness for the backoff's jitter, and its pid.
 */
import type { KeeperReport } from '../protocol.js'
import type { HeadLimits } from './http/head-watch.js'

export interface KeeperIo {
  report(report: KeeperReport): void
  now(): number
  random(): number
  pid: number
  /** How long, and how much, connections that send no whole request head may hold; tests shorten it. */
  headLimits?: HeadLimits
  /** Waits `ms`; a test may pass one that moves a fake clock instead. Default: setTimeout. */
  sleep?(ms: number): Promise<void>
  /**
   * Collects the young generation now, when the process can (keeper/main.ts). V8 starts a young
   * collection when its own small objects fill the young space, not when the Buffers they hold
   * do: every 32 KiB SSH packet is three Buffers outside V8's heap (the data read, the packet,
   * its ciphertext) held by a few hundred bytes inside it, so between two collections tens of
   * megabytes of dead packets piled up, which the keeper's resident memory kept after the load.
   */
  collectYoung?(): void
  /**
   * Starts a full collection, marked concurrently. Each logged request leaves a few kilobytes of
   * short-lived strings (its head, its HAR entry) that a young collection promotes, and V8 lets
   * the old generation grow well past them before it collects on its own: the keeper's resident
   * memory grew by about 20 MB over 8,000 logged requests without this.
   */
  collectOld?(): void
}

/** Requests logged between two full collections: see KeeperIo.collectOld. */
export const COLLECT_OLD_EVERY_REQUESTS = 500

/** Bytes through the tunnel between two young collections: see KeeperIo.collectYoung. */
export const COLLECT_EVERY_BYTES = 2 * 1024 * 1024
