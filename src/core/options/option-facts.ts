/**
 * One table of every option, on every host: its name, the hosts that take it, its default as
 * action.yml writes it, the credential kinds that read it, whether it is a secret or a list (one
 * item a line), the CLI's variable when it is not the plain one, the earlier names the CLI still
 * reads or refuses, and its one-line description. The code reads its lists from here (the CLI's flags, the secrets to mask and to
 * keep off a command line); tests hold action.yml, the GitLab component, `--help` and the README
 * tables to it. Facts only: reading and checking values stays with the settings' readers.
 */
import { CLI_ONLY_OPTIONS } from './cli-options.js'
import { API_KEY_OPTION, CREDENTIAL_OPTIONS, TUNNEL_TOKEN_OPTION } from './credential-options.js'
import type { OptionFacts, OptionHost } from './option-shape.js'
import { TUNNEL_OPTIONS } from './tunnel-options.js'

export type { OptionFacts, OptionHost }
export { API_KEY_OPTION, TUNNEL_TOKEN_OPTION }

/** Every option, in the order action.yml and the README list them, the CLI's own last. */
export const OPTIONS: readonly OptionFacts[] = [
  ...CREDENTIAL_OPTIONS,
  ...TUNNEL_OPTIONS,
  ...CLI_ONLY_OPTIONS
]

const BY_NAME = new Map(OPTIONS.map(option => [option.name, option]))

/** The facts of the option of that name; undefined for a name no host has. */
export function optionFacts(name: string): OptionFacts | undefined {
  return BY_NAME.get(name)
}

/** The options a host takes, in the table's order. */
export function optionsOf(host: OptionHost): OptionFacts[] {
  return OPTIONS.filter(option => option.hosts.includes(host))
}

/** The secret options' names: `api-key`, `tunnel-token`. */
export const SECRET_OPTION_NAMES: readonly string[] = OPTIONS.filter(o => o.secret).map(o => o.name)

/** The options that are lists, one item a line: `expose`, `tunnel-host-key`. */
export const MULTI_LINE_OPTION_NAMES: readonly string[] = OPTIONS.filter(o => o.multiLine).map(
  o => o.name
)

/**
 * The CLI's variable for an option: `SVC_` and the name in upper snake case (`project` →
 * `SVC_PROJECT`), unless the table names another (`tunnel-host` → `SVC_INPUT_TUNNEL_HOST`).
 */
export function cliVariable(name: string): string {
  return BY_NAME.get(name)?.variable ?? `SVC_${name.toUpperCase().replace(/-/g, '_')}`
}

/** The variables the CLI reads its secrets from: `SVC_API_KEY`, `SVC_INPUT_TUNNEL_TOKEN`. */
export const SECRET_VARIABLES: readonly string[] = SECRET_OPTION_NAMES.map(cliVariable)

/** The option's default as the table gives it ('' when none, or for a name no host has). */
export function optionDefault(name: string): string {
  return BY_NAME.get(name)?.default ?? ''
}
