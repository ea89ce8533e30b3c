/**
 * Every option the CLI accepts, and where each may come from. The action's inputs keep their
 * names (`--project`, `SVC_PROJECT`), so docs, messages and habits carry over between hosts.
 */

/** The action's inputs that the CLI takes, by their input names. */
export const ACTION_OPTIONS = [
  'credential',
  'project',
  'environment',
  'ttl-minutes',
  'base-url',
  'expose',
  'url-template',
  'tunnel-host-key',
  'client-id',
  'tunnel-host',
  'tunnel-port',
  'tunnel-user',
  'env-prefix',
  'max-attempts',
  'timeout-seconds',
  'revoke',
  'fail-on-revoke-error'
] as const

/**
 * Options only the CLI has: where its files go and how long a tunnel may live. None may be a
 * name Node takes for itself: Node reads some of its flags from the whole command line, also
 * after the script's name (see RETIRED_OPTIONS), before any code of the tool runs.
 */
export const CLI_OPTIONS = [
  'variables-file',
  'state-file',
  'outputs-file',
  'work-dir',
  'tunnel-max-minutes'
] as const

/**
 * Secrets: read from the environment only. A command line is visible to every process on the
 * machine and kept in shell history, so a flag for one is refused.
 */
export const SECRET_OPTIONS = ['api-key', 'tunnel-token'] as const

/**
 * Names the CLI no longer takes, each with its successor. `--env-file` is Node's own flag: Node
 * loads the file it names (and runs the NODE_OPTIONS line in it) when it appears anywhere before
 * `--`, or exits 9 when the file is missing, so the tool cannot safely take it as an option.
 */
export const RETIRED_OPTIONS: ReadonlyMap<string, FlagName> = new Map([
  ['env-file', 'variables-file']
])

/**
 * Variables still read under an earlier name, after the current one: SVC_ENV_FILE keeps
 * working (a variable is not on Node's command line, so it was never at risk).
 */
export const EARLIER_VARIABLES: Partial<Record<FlagName, string>> = {
  'variables-file': 'SVC_ENV_FILE'
}

/** Boolean flags that may be given bare (`--revoke` means `--revoke true`). */
export const SWITCHES = new Set(['revoke', 'fail-on-revoke-error'])

/**
 * Inputs whose plain variable name would be one the CLI writes: after `. tunnel.env`, the
 * shell holds SVC_TUNNEL_HOST and its siblings, and `revoke` must never read them back as
 * input. These read `SVC_INPUT_TUNNEL_*` instead.
 */
const RENAMED_VARIABLES: Record<string, string> = {
  'tunnel-host': 'SVC_INPUT_TUNNEL_HOST',
  'tunnel-port': 'SVC_INPUT_TUNNEL_PORT',
  'tunnel-user': 'SVC_INPUT_TUNNEL_USER',
  'tunnel-token': 'SVC_INPUT_TUNNEL_TOKEN'
}

export type FlagName = (typeof ACTION_OPTIONS)[number] | (typeof CLI_OPTIONS)[number]

const FLAGS = new Set<string>([...ACTION_OPTIONS, ...CLI_OPTIONS])

export function isFlagName(name: string): name is FlagName {
  return FLAGS.has(name)
}

export function isSecretOption(name: string): boolean {
  return (SECRET_OPTIONS as readonly string[]).includes(name)
}

/** `project` → `SVC_PROJECT`; `tunnel-host` → `SVC_INPUT_TUNNEL_HOST`. */
export function variableFor(name: string): string {
  return RENAMED_VARIABLES[name] ?? `SVC_${name.toUpperCase().replace(/-/g, '_')}`
}
