import type { RunIdentity } from '../core/host.js'

/** The run identity from the runner's GITHUB_* variables; any may be missing outside a runner. */
export function runIdentityFrom(env: NodeJS.ProcessEnv): RunIdentity {
  return {
    repository: env.GITHUB_REPOSITORY,
    runId: env.GITHUB_RUN_ID,
    runAttempt: env.GITHUB_RUN_ATTEMPT
  }
}
