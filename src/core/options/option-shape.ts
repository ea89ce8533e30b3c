/** What the options' table (option-facts.ts) says of each option. */
import type { KindName } from './kind-names.js'

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
  /** A list, one item a line: each line is checked as a one-line value (settings/input-text.ts). */
  multiLine?: true
  /** The CLI's variable, when it is not `SVC_` and the name in upper snake case. */
  variable?: string
  /** A variable the CLI still reads under an earlier name, when the current one is not set. */
  earlierVariable?: string
  /** An earlier flag the CLI refuses with a message that names this option instead. */
  retiredFlag?: string
  /** For a secret, which has no flag: what `--help` says beside its variable. */
  secretHelp?: string
  description: string
}
