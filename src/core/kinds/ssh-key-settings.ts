/** What the ssh-key kind reads from its options; apart, so its helpers need not import the kind. */
import type { KnownUser } from '../settings/login-options.js'
import type { CommonSettings } from '../settings/types.js'

/** An SSH key made on the runner and uploaded with keys-upload. */
export interface SshKeySettings extends CommonSettings {
  kind: 'ssh-key'
  apiKey: string
  /** The tunnel user an uploaded key logs in as; sent as client_id. */
  clientId: string
  baseUrl: string
  // The upload answer carries no host, so the workflow names it.
  tunnelHost: string
  tunnelPort: number
  knownUser: KnownUser
}
