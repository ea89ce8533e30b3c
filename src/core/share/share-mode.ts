/** The `share` option's values, and the option read as one of them. */
import { ExplainedError } from '../errors.js'
import type { OptionSource } from '../host.js'
import { optionNamed } from '../settings/option-values.js'
import { quote } from '../text/quote.js'

export const SHARE_MODES = ['off', 'create', 'use', 'revoke'] as const
export type ShareMode = (typeof SHARE_MODES)[number]

/** The `share` option; empty reads as `off`. */
export function readShareMode(options: OptionSource): ShareMode {
  const raw = options.read('share')
  const value = raw.trim().toLowerCase() || 'off'
  if ((SHARE_MODES as readonly string[]).includes(value)) return value as ShareMode
  throw new ExplainedError(
    `${optionNamed(options, 'share')} is ${quote(raw)}: expected one of ${SHARE_MODES.slice(0, -1).join(', ')} or ${SHARE_MODES.at(-1)}.`
  )
}
