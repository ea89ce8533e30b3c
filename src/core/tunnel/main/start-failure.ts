/**
 * Why the tunnel did not start, told to the workflow author: one message per cause, what happened
 * and what to do.
 */
import { printable } from '../../text/printable.js'
import { ExplainedError } from '../../errors.js'
import type { FailureCause, KeeperReport } from '../protocol.js'

/** What main learns from a keeper it started: its report, or that the process died first. */
export type StartOutcome = KeeperReport | { type: 'died'; detail: string }

/**
 * The tunnel did not start, with the cause the keeper reported (`died`: it ended before it said),
 * so that a caller can explain a cause further: `share: use` asks the service why a login was
 * refused (src/core/share/use-failure.ts).
 */
export class TunnelStartError extends ExplainedError {
  constructor(
    message: string,
    readonly failure: FailureCause | 'died',
    /** What the keeper reported, unprinted: outside text, for a caller that words it anew. */
    readonly detail = ''
  ) {
    super(message)
    this.name = 'TunnelStartError'
  }
}

/** One message per cause: what happened and what to do. */
export function describeStartFailure(
  outcome: StartOutcome,
  /** The keeper's log is removed with its folder: its last line is all that is left to quote. */
  lastLogLine: string,
  tempRootName: string,
  /** How the message names the options where the user sets them, as the host labels them. */
  {
    hostKeyOption = 'tunnel-host-key',
    exposeOption = 'expose'
  }: { hostKeyOption?: string; exposeOption?: string } = {}
): string {
  if (outcome.type === 'ready') return 'The tunnel started.'
  // The report comes from another process and quotes the tunnel server: untrusted, cut short.
  const detail = printable(outcome.detail, 400)
  if (outcome.type === 'died') {
    return `The tunnel did not start: ${detail}. The last line of its log: ${printable(lastLogLine, 300)}. Please report this if it recurs.`
  }
  switch (outcome.cause) {
    case 'host-key':
      return `The tunnel did not start: ${detail}, so the connection was left before the token was sent. If the server changed its key, update ${hostKeyOption}; if not, something between the runner and the server may be intercepting the connection.`
    case 'auth':
      return `The tunnel did not start: ${detail}. The credential may have been revoked or have expired already; run the job again, and check tunnel-host and tunnel-port if they are overridden.`
    case 'forward':
      // The server said the name is held: by a job sharing the credential that exposes the same
      // names, or by any tunnel where the URLs do not carry the user. The name is our own entry's.
      if (outcome.nameTaken === true && outcome.name !== undefined) {
        return `The tunnel did not start: the name ${printable(outcome.name, 80)} is taken on the tunnel server, by another job sharing this credential or by another tunnel. Give each job its own names in ${exposeOption}, e.g. web-\${{ strategy.job-index }} on GitHub or web-{index} with the GitLab component.`
      }
      // The server said why: its per-user limit, which every job sharing one credential fills.
      if (outcome.forwardLimit !== undefined) {
        return `The tunnel did not start: ${detail}. Expose fewer entries, or run fewer jobs that expose at once with one shared credential.`
      }
      return `The tunnel did not start: ${detail}. The name may be in use: by another tunnel of this user, or, where the URLs do not carry the user, of anyone on that server. Or the server limits how many forwards one tunnel user holds (an SSH refusal gives no reason). Choose another name in expose, or expose fewer entries.`
    case 'timeout':
      return `The tunnel did not start: ${detail}. Check that the runner can reach the tunnel server, or raise timeout-seconds and max-attempts.`
    case 'connect':
      return `The tunnel did not start: could not connect to the tunnel server (${detail}). Check tunnel-host and tunnel-port, and that the runner may open outgoing SSH connections.`
    case 'record':
      // Without its record post could neither find nor stop the process, so it was not kept.
      return `The tunnel did not start: ${detail}; without it, the tunnel could not be stopped cleanly when the job ends, nor say what it did. Free some space in ${tempRootName} (or make it writable) and run the job again.`
  }
}
