/**
 * What the steps read from their options, once checked. The kinds' own settings are declared in
 * their modules; MainSettings (kinds/registry.ts) is whichever of them the `credential` option picks.
 */
import type { OptionSource } from '../host.js'
import type { HttpSettings } from '../service/factory.js'
import type { TunnelSettings } from './expose.js'
import type { KindName } from '../options/kind-names.js'
import type { ShareMode } from '../share/share-mode.js'

export type { HttpSettings, KindName }

/** What every kind's main step reads, whatever it obtains. */
export interface CommonSettings {
  revoke: boolean
  /** Read by post only, but checked here so a typo fails the job before a credential exists. */
  failOnRevokeError: boolean
  envPrefix: string
  exportEnv: boolean
  http: HttpSettings
  /** What to expose through the tunnel; absent when `expose` is empty (no tunnel). */
  tunnel?: TunnelSettings
  /** How a message names an option where the user sets it (`input revoke`, `--revoke`). */
  optionLabel: OptionSource['label']
}

/** What the post step reads from its options; saved state only names what to revoke. */
export interface PostSettings {
  /** The kind the record is revoked as: its own, checked against the options (revoke-kind.ts). */
  kind: KindName
  apiKey: string
  /** From the option, never from saved state: the API key goes nowhere else. Absent for kinds that send no request. */
  baseUrl?: string
  revoke: boolean
  failOnRevokeError: boolean
  http: HttpSettings
  optionLabel: OptionSource['label']
  /** The `share` option; absent when it is not set (a command line's revoke may not repeat it). */
  share?: ShareMode
}
