import type { RunIdentity, ShareScope } from '../core/host.js'

/** The run identity from the runner's GITHUB_* variables; any may be missing outside a runner. */
export function runIdentityFrom(env: NodeJS.ProcessEnv): RunIdentity {
  return {
    repository: env.GITHUB_REPOSITORY,
    runId: env.GITHUB_RUN_ID,
    runAttempt: env.GITHUB_RUN_ATTEMPT
  }
}

/** The workflow run every job of it sees; undefined when the runner did not name both parts. */
export function shareScopeFrom(env: NodeJS.ProcessEnv): ShareScope | undefined {
  const repository = env.GITHUB_REPOSITORY?.trim()
  const runId = env.GITHUB_RUN_ID?.trim()
  if (!repository || !runId) return undefined
  return { system: 'github', repository, runId, variables: 'GITHUB_REPOSITORY and GITHUB_RUN_ID' }
}
