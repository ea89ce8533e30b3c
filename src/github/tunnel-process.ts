import { dirname, join } from 'node:path'
import type { TunnelProcessLaunch } from '../core/host.js'

/** The variables the keeper keeps: enough for Node to run, nothing of the step's secrets. */
const KEPT_VARIABLES = new Set([
  'PATH',
  'HOME',
  'USERPROFILE',
  'TEMP',
  'TMP',
  'TMPDIR',
  'SYSTEMROOT',
  'WINDIR',
  'LANG',
  // The runner ends processes carrying its job's tracking id when the job ends: kept, so a
  // keeper whose post step never ran (a cancelled self-hosted job) does not outlive the job.
  'RUNNER_TRACKING_ID'
])

/**
 * The keeper's environment: the step's inputs (the API key among them) and exported variables
 * (the token) stay out, so no other process reading /proc/<pid>/environ finds them there.
 */
export function keeperEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && KEPT_VARIABLES.has(name.toUpperCase())) kept[name] = value
  }
  return kept
}

/** The bundle's keeper sits next to the running dist/index.cjs (process.argv[1]). */
export function bundledTunnelProcess(): TunnelProcessLaunch {
  return {
    scriptPath: join(dirname(process.argv[1]), 'tunnel', 'index.cjs'),
    environment: keeperEnvironment(process.env)
  }
}
