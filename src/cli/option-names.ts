/**
 * Every option the CLI accepts, and where each may come from, as the options' table
 * (src/core/options/) lists them. The action's inputs keep their names (`--project`,
 * `SVC_PROJECT`), so docs, messages and habits carry over between hosts.
 */
import { cliVariable, optionsOf, SECRET_OPTION_NAMES } from '../core/options/option-facts.js'

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

/** Flags the CLI no longer takes, each with its successor (the table's `retiredFlag`). */
export const RETIRED_OPTIONS: ReadonlyMap<string, FlagName> = new Map(
  optionsOf('cli').flatMap(option =>
    option.retiredFlag === undefined ? [] : [[option.retiredFlag, option.name] as const]
  )
)

/** Variables still read under an earlier name, after the current one (`earlierVariable`). */
export const EARLIER_VARIABLES: Readonly<Record<FlagName, string | undefined>> = Object.fromEntries(
  optionsOf('cli').flatMap(option =>
    option.earlierVariable === undefined ? [] : [[option.name, option.earlierVariable]]
  )
)

/** Boolean flags that may be given bare (`--revoke` means `--revoke true`). */
export const SWITCHES: ReadonlySet<string> = new Set(
  optionsOf('cli')
    .filter(option => option.switch === true)
    .map(option => option.name)
)

/** A flag the CLI takes: an option of the table's that the CLI has, not a secret (isFlagName). */
export type FlagName = string

const FLAGS = new Set<string>([...ACTION_OPTIONS, ...CLI_OPTIONS])

export function isFlagName(name: string): name is FlagName {
  return FLAGS.has(name)
}

export function isSecretOption(name: string): boolean {
  return SECRET_OPTIONS.includes(name)
}

/** `project` → `SVC_PROJECT`; `tunnel-host` → `SVC_INPUT_TUNNEL_HOST` (the table's `variable`). */
export const variableFor: (name: string) => string = cliVariable
