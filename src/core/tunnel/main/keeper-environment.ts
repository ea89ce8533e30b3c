/** The variables every tunnel process keeps: enough for Node to run, nothing of the step's secrets. */
const KEPT_VARIABLES = [
  'PATH',
  'HOME',
  'USERPROFILE',
  'TEMP',
  'TMP',
  'TMPDIR',
  'SYSTEMROOT',
  'WINDIR',
  'LANG'
]

/**
 * The tunnel process's environment: the step's options (the API key among them) and exported
 * variables (the token) stay out, so no other process reading /proc/<pid>/environ finds them
 * there. A host adds the names its CI system needs (`extra`).
 */
export function keeperEnvironment(
  env: Record<string, string | undefined>,
  extra: string[] = []
): Record<string, string> {
  const kept = new Set([...KEPT_VARIABLES, ...extra])
  const result: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && kept.has(name.toUpperCase())) result[name] = value
  }
  return result
}
