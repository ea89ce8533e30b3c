import * as core from '@actions/core'
import { describeUnexpected } from '../core/text/describe-error.js'

/**
 * The entry point's net for a bug that escaped a step: one `::error::` for main, one warning for
 * post (cleanup must not fail the job by accident), never a stack trace, which could quote data.
 */
export function reportUnexpected(step: 'main' | 'post', error: unknown): void {
  const message =
    `Unexpected error in the ${step} step: ${describeUnexpected(error)}. ` +
    "This is a bug in the action; please report it with the step's log."
  if (step === 'main') core.setFailed(message)
  else core.warning(message)
}
