/**
 * Every option the CLI accepts, and where each may come from, as the options' table
 * (src/core/options/) lists them. The action's inputs keep their names (`--project`,
 * `SVC_PROJECT`), so docs, messages and habits carry over between hosts.
 */
import { optionsOf, SECRET_OPTION_NAMES } from '../core/options/option-facts.js'

/**
 * The action's inputs that the CLI takes as flags, by their input names (secrets are read from
 * their variables only: a command line is visible to every process on the machine and kept in
 * shell history, so a flag for one is refused).
 */
export const ACTION_OPTIONS: readonly string[] = optionsOf('cli')
  .filter(option => option.hosts.includes('action') && !option.secret)
  .map(option => option.name)

/** Options only the CLI has: where its files go and how long a tunnel may live. */
export const CLI_OPTIONS: readonly string[] = optionsOf('cli')
  .filter(option => !option.hosts.includes('action'))
  .map(option => option.name)

/** Secrets: read from the environment only. */
export const SECRET_OPTIONS: readonly string[] = SECRET_OPTION_NAMES

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
export const EARLIER_VARIABLES: Readonly<Record<FlagName, string | undefined>> = {
  'variables-file': 'SVC_ENV_FILE'
}

/** Boolean flags that may be given bare (`--revoke` means `--revoke true`). */
export const SWITCHES: ReadonlySet<string> = new Set(
  optionsOf('cli')
    .filter(option => option.switch === true)
    .map(option => option.name)
)

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

/** A flag the CLI takes: an option of the table's that the CLI has, not a secret (isFlagName). */
export type FlagName = string

const FLAGS = new Set<string>([...ACTION_OPTIONS, ...CLI_OPTIONS])

export function isFlagName(name: string): name is FlagName {
  return FLAGS.has(name)
}

export function isSecretOption(name: string): boolean {
  return SECRET_OPTIONS.includes(name)
}

/** `project` → `SVC_PROJECT`; `tunnel-host` → `SVC_INPUT_TUNNEL_HOST`. */
export function variableFor(name: string): string {
  return RENAMED_VARIABLES[name] ?? `SVC_${name.toUpperCase().replace(/-/g, '_')}`
}
