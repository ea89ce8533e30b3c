import { dirname, join } from 'node:path'
import type { KeeperLaunch } from '../core/host.js'
import { keeperEnvironment } from '../core/tunnel/main/keeper-environment.js'

/**
 * The runner ends processes carrying its job's tracking id when the job ends: kept, so a keeper
 * whose post step never ran (a cancelled self-hosted job) does not outlive the job.
 */
const RUNNER_VARIABLES = ['RUNNER_TRACKING_ID']

/** The keeper's environment on a runner: see core/tunnel/main/keeper-environment.ts. */
export function keeperEnvironmentOnRunner(env: NodeJS.ProcessEnv): Record<string, string> {
  return keeperEnvironment(env, RUNNER_VARIABLES)
}

/** The bundle's keeper sits next to the running dist/index.cjs (process.argv[1]). */
export function bundledKeeper(): KeeperLaunch {
  return {
    scriptPath: join(dirname(process.argv[1]), 'tunnel', 'index.cjs'),
    environment: keeperEnvironmentOnRunner(process.env)
  }
}
