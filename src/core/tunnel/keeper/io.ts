/**
 * What the keeper needs from the process it runs in (keeper/main.ts), and tests give it instead:
 * where its one report goes, the clock, randomness for the backoff's jitter, and its pid.
 */
import type { KeeperReport } from '../protocol.js'

export interface KeeperIo {
  report(report: KeeperReport): void
  now(): number
  random(): number
  pid: number
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
}

/** Bytes through the tunnel between two young collections: see KeeperIo.collectYoung. */
export const COLLECT_EVERY_BYTES = 2 * 1024 * 1024
