/**
 * The GitHub Actions host: the port (core/host.ts) on @actions/core and the runner's variables.
 * Named functions, not the `core` namespace itself: a namespace passed as a value keeps all of
 * @actions/core in the bundle, @actions/exec's stub included.
 */
import * as core from '@actions/core'
import { tmpdir } from 'node:os'
import { systemClock } from '../core/clock.js'
import type { FinalWrites, Host } from '../core/host.js'
import { requestLogInTempRoot } from '../core/tunnel/main/request-log-path.js'
import { runIdentityFrom, shareScopeFrom } from './run-identity.js'
import { appendSummaryTables } from './summary.js'
import { bundledKeeper } from './keeper-launch.js'

export function githubHost(): Host {
  // The job's scratch directory, which the runner empties after the job (the OS's outside a runner).
  const tempRoot = process.env.RUNNER_TEMP || tmpdir()
  const run = runIdentityFrom(process.env)
  const shareScope = shareScopeFrom(process.env)
  return {
    options: {
      read: name => core.getInput(name),
      label: name => `input ${name}`
    },
    log: {
      info: message => core.info(message),
      notice: message => core.notice(message),
      warning: message => core.warning(message)
    },
    // The runner then hides each secret in every later line of the log.
    mask: secrets => {
      for (const secret of secrets) core.setSecret(secret)
    },
    handOver,
    state: {
      save: (name, value) => core.saveState(name, value),
      load: name => core.getState(name)
    },
    tempRoot,
    tempRootName: 'RUNNER_TEMP',
    outputsName: "the step's outputs",
    run,
    ...(shareScope && { shareScope }),
    clock: systemClock,
    keeperLaunch: bundledKeeper,
    // Beside the tunnel's folder, not in it: post removes the folder, upload-artifact runs before.
    requestLogPath: tunnelDir => requestLogInTempRoot(tempRoot, run.runId, tunnelDir)
  }
}

/** Variables and outputs through the runner's files (a failure throws); then the summary. */
function handOver({ variables, outputs, summary }: FinalWrites): void {
  for (const [name, value] of Object.entries(variables)) core.exportVariable(name, value)
  for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value)
  // The credential is already out; a summary is a courtesy and must not fail the step.
  appendSummaryTables(summary)
}
