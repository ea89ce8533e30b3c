/**
 * The core's OptionSource on the command line: a flag wins over its SVC_ variable, secrets come
 * from variables only, and every message names the option where the user set it.
 */
import type { OptionSource } from '../core/host.js'
import { optionFacts } from '../core/options/option-facts.js'
import {
  EARLIER_VARIABLES,
  isFlagName,
  isSecretOption,
  variableFor,
  type FlagName
} from './option-names.js'

export function cliOptions(
  flags: ReadonlyMap<FlagName, string>,
  env: NodeJS.ProcessEnv
): OptionSource {
  const flagged = (name: string) => isFlagName(name) && flags.has(name)
  /** The variable that sets the option: its own, else an earlier name of it that is set. */
  const variableSetting = (name: string) => {
    const earlier = isFlagName(name) ? EARLIER_VARIABLES[name] : undefined
    const own = variableFor(name)
    return env[own] === undefined && earlier !== undefined && env[earlier] !== undefined
      ? earlier
      : own
  }
  return {
    read: name => {
      if (flagged(name)) return flags.get(name as FlagName)!
      if (isFlagName(name) || isSecretOption(name)) return env[variableSetting(name)] ?? ''
      // A name no host has is a slip in the code, not the user's: said loudly, never read as ''.
      if (optionFacts(name) === undefined) throw new Error(`No option is named ${name}.`)
      // An action input the CLI has no option for (export-env): its default applies.
      return ''
    },
    label: name => {
      if (flagged(name)) return `--${name}`
      if (isSecretOption(name)) return variableFor(name)
      if (!isFlagName(name)) return name
      // Set through its variable: name that, since that is where the user will look.
      const variable = variableSetting(name)
      return env[variable] !== undefined ? variable : `--${name}`
    }
  }
}
