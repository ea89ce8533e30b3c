/**
 * What the steps return: what happened, for each host to map to its own means (a failed step or
 * a warning on GitHub; an exit code and a state file kept or cleared on a command line). The
 * core never asks a host what it was told; a host decides from these values alone.
 */
import type { SummaryTable } from './host.js'

/**
 * Main: the credential was handed over whole (provisioned, or opened with `share: use`), or the
 * run's credential was revoked (`share: revoke`), or the step failed and left nothing usable.
 */
export type ProvisionOutcome =
  | { status: 'provisioned' }
  /** `share: revoke`: the run's credential is revoked, was gone already, or was never shared. */
  | { status: 'shared-revoked' }
  /** `message` names the cause and what to do; the credential, if any, was revoked at once. */
  | { status: 'failed'; message: string }

/** Post's credential. */
export type CredentialOutcome =
  /** Revoked now, or the service said it was already gone. */
  | { status: 'revoked' }
  /** Left valid on purpose: the revoke option is false, or the job held the token already. */
  | { status: 'kept' }
  /** Nothing recorded, or nothing the service lets anyone revoke (a free credential). */
  | { status: 'nothing' }
  /**
   * Still recorded and maybe alive: the revoke failed, or the record could not be read. `report`
   * says how much it weighs: `fail-step` when fail-on-revoke-error asks for a failed step, `info`
   * when the credential should already have expired by the clock (the service still decides).
   */
  | { status: 'failed'; message: string; report: 'fail-step' | 'warning' | 'info' }

/** Post's tunnel process. */
export type TunnelOutcome =
  /** No tunnel recorded. */
  | { status: 'none' }
  /** It ran, and was stopped now. */
  | { status: 'stopped' }
  /** It had ended already: by itself, with main, or killed with what started it. */
  | { status: 'gone' }
  /** The record names no process this tool could have started: nothing to stop, nothing to retry. */
  | { status: 'not-found' }
  /** It may still run: it was asked to stop, but without proof of its identity no signal was sent. */
  | { status: 'alive' }

export interface RevokeOutcome {
  tunnel: TunnelOutcome
  credential: CredentialOutcome
  /**
   * Set when the options name another credential kind than the record: the record's own kind was
   * revoked (so nothing is left alive), and this says so, naming the recorded kind.
   */
  kindMismatch?: string
  /** Folders the step could not tidy (each already named in a warning): nothing in them runs. */
  untidied: string[]
  /** What came through the tunnel, and how it fared: set when a tunnel was stopped and left a record. */
  requests?: RequestReport
}

/** The tunnel's report, ready for each host: every text in it is printable already. */
export interface RequestReport {
  /** For a job summary: the request table (with the request log on), then the tunnel's line. */
  summary: SummaryTable[]
  /** `Requests: 12 (2xx 10, 4xx 2); log: PATH`; absent with the request log off. */
  countsLine?: string
  /**
   * `Tunnel: up 12 s, never down; 3 connections (5 requests: …), …`, which post has logged
   * already; absent when the tunnel process left no record.
   */
  tunnelLine?: string
}

/** True while something recorded is unfinished, so a later revoke has something to retry. */
export function leftUnfinished(outcome: RevokeOutcome): boolean {
  return outcome.credential.status === 'failed' || outcome.tunnel.status === 'alive'
}
