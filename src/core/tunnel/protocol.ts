/**
 * What main and the detached keeper say to each other: the configuration main sends over IPC,
 * the one report the keeper sends back, and the record (stats file) post reads.
 */
import type { ExposeEntry, HostKeyPin } from '../settings/expose.js'

/** What main sends the keeper over IPC (never on its command line or in its environment). */
export interface KeeperConfig {
  host: string
  port: number
  user: string
  /** The tunnel token: the SSH password (and the keyboard-interactive answer). */
  token?: string
  /** A private key file, for credentials that log in with a key instead of the token. */
  privateKeyPath?: string
  entries: ExposeEntry[]
  /** Host keys to trust; empty: trust the first key seen, and that one alone, and report it. */
  hostKeyPins: HostKeyPin[]
  /** The credential's expiry: no reconnecting after it. */
  expiresAt?: string
  /** Bounds one attempt: connect, authenticate, and every forward accepted. */
  attemptTimeoutMs: number
  /** Attempts before the first ready; later reconnects go on while the credential is valid. */
  maxAttempts: number
  logPath: string
  statsPath: string
  /** The keeper stops when this file appears: a signal that works on every OS. */
  stopPath: string
}

/** `record`: the keeper could not write its stats file, without which post cannot stop it. */
export type FailureCause = 'host-key' | 'auth' | 'forward' | 'timeout' | 'connect' | 'record'

/** What the keeper tells main, once: ready with every forward, or why not. */
export type KeeperReport =
  | { type: 'ready'; fingerprint: string }
  | { type: 'failed'; cause: FailureCause; detail: string; name?: string; fingerprint?: string }

/** Written to statsPath on change and at exit; the post step reads it. */
export interface KeeperStats {
  pid: number
  startedAt: string
  readyAt?: string
  /** Last time the keeper wrote this file (at least every few seconds while it runs). */
  updatedAt: string
  state: 'connecting' | 'ready' | 'reconnecting' | 'stopped' | 'ended'
  reconnects: number
  connections: number
  /** Bytes from the tunnel to the local apps (requests), and back (responses). */
  bytesIn: number
  bytesOut: number
  /** Every local connection that failed, including those the log only summarises. */
  localErrors: number
  /** Set when the keeper ended on its own, before post asked it to stop. */
  endedAt?: string
  endReason?: string
}
