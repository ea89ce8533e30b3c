import { tmpdir } from 'node:os'

/** RUNNER_TEMP, the job's scratch directory, which the runner empties after the job (the OS's outside a runner). */
export function runnerTemp(): string {
  return process.env.RUNNER_TEMP || tmpdir()
}
