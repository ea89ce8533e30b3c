/**
 * The environment the tunnel process starts with: enough for Node to run, and nothing of the
 * step's secrets.
 */

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
