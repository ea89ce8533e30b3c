import type { OptionSource } from '../host.js'
import { credentialKind } from '../kinds/registry.js'
import { readKindChoice } from './choice.js'
import { readCommonSettings } from '../settings/common.js'
import { checkedOptions } from '../settings/input-text.js'
import type { MainSettings } from '../kinds/registry.js'

/**
 * Every option main reads, checked before any request is sent: the kind, the options all kinds
 * share, then the kind's own (the kind reads them). Throws an ExplainedError naming the option.
 */
export function readMainSettings(source: OptionSource): MainSettings {
  // Every value's text is checked before any parser sees it (see input-text.ts).
  const options = checkedOptions(source)
  const { kind, auto } = readKindChoice(options)
  return credentialKind(kind).readSettings(options, readCommonSettings(options), { auto })
}
