/**
 * What the core's outcomes mean on GitHub: a main that failed fails the step; post warns about
 * what it could not do, and fails the step only where fail-on-revoke-error asks (cleanup must not
 * fail a job by accident). The runner empties RUNNER_TEMP and keeps no state after the job, so
 * nothing else is left to decide.
 */
import * as core from '@actions/core'
import type { Host } from '../core/host.js'
import { provision } from '../core/provision.js'
import { revoke } from '../core/revoke.js'
import { appendSummaryTables } from './summary.js'

export async function mainStep(host: Host): Promise<void> {
  const outcome = await provision(host)
  if (outcome.status === 'failed') core.setFailed(outcome.message)
}

export async function postStep(host: Host): Promise<void> {
  const { credential, kindMismatch, requests } = await revoke(host)
  // The requests and the timeline; the HAR stays in RUNNER_TEMP for an upload step.
  if (requests) appendSummaryTables(requests.summary)
  // The options are main's own here, so a record of another kind was written by something else.
  if (kindMismatch !== undefined) host.log.warning(kindMismatch)
  if (credential.status !== 'failed') return
  if (credential.report === 'fail-step') core.setFailed(credential.message)
  else if (credential.report === 'warning') host.log.warning(credential.message)
  else host.log.info(credential.message)
}
