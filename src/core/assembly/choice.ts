/**
 * The `credential` option: one of the registry's kinds, or `auto`, which means cicd when an API
 * key is given and free when it is not (a fork's pull request, Dependabot: no secrets there).
 */
import { ExplainedError } from '../errors.js'
import type { OptionSource } from '../host.js'
import { KIND_NAMES } from '../options/kind-names.js'
import { optionNamed } from '../settings/option-values.js'
import { quote } from '../text/quote.js'
import type { KindName } from '../settings/types.js'
import { API_KEY_OPTION } from '../options/option-facts.js'

export interface KindChoice {
  kind: KindName
  /** True when `auto` picked the kind. */
  auto: boolean
}

export function readKindChoice(options: OptionSource): KindChoice {
  const raw = options.read('credential')
  const value = raw.trim().toLowerCase() || 'cicd'
  const apiKey = options.read(API_KEY_OPTION).trim()
  if (value === 'auto') return { kind: apiKey ? 'cicd' : 'free', auto: true }
  if ((KIND_NAMES as readonly string[]).includes(value))
    return { kind: value as KindName, auto: false }
  // As action.yml lists them: auto right after cicd and free, the two kinds it picks between.
  const choices = [...KIND_NAMES.slice(0, 2), 'auto', ...KIND_NAMES.slice(2)]
  throw new ExplainedError(
    `${optionNamed(options, 'credential')} is ${quote(raw)}: expected one of ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}.`
  )
}
