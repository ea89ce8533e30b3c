/** What the options' table (option-facts.ts) says of each option. */
import type { KindName } from '../settings/kind-names.js'

/** `action`: an input of action.yml; `cli`: a flag and SVC_ variable; `component`: a GitLab input. */
export type OptionHost = 'action' | 'cli' | 'component'

export interface OptionFacts {
  name: string
  hosts: readonly OptionHost[]
  /** As action.yml gives it; '' when the option has none (the reader's own rule applies). */
  default: string
  /** The credential kinds that read it; `all` for options every kind reads. */
  kinds: readonly KindName[] | 'all'
  /** A secret: never on a command line (the CLI reads it from its variable only), always masked. */
  secret: boolean
  /** How `--help` shows its value: `N`, `URL`, `true|false`. */
  value: string
  /** A CLI flag that may stand bare for `true` (`--revoke` is `--revoke true`). */
  switch?: boolean
  description: string
}
