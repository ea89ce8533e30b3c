/**
 * A `share: use` step refused as a user must see it: exit 1, one error that names the cause, and
 * nothing handed to later steps or jobs: no GITHUB_ENV or GITHUB_OUTPUT line, no tunnel saved for
 * post, no summary.
 */
import type { ActionStep } from './workflow-run.js'

export function expectRefusedBeforeExport(step: ActionStep, message: string | RegExp): void {
  expect({
    exitCode: step.exitCode,
    errors: step.errors,
    env: step.env,
    outputs: step.outputs,
    tunnel: step.state.tunnel ?? '',
    summary: step.summary
  }).toEqual({
    exitCode: 1,
    errors: [
      typeof message === 'string'
        ? expect.stringContaining(message)
        : expect.stringMatching(message)
    ],
    env: {},
    outputs: {},
    tunnel: '',
    summary: ''
  })
}
