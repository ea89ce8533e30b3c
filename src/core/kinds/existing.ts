import type { ExistingSettings } from '../settings/inputs.js'
import { printable } from '../text/printable.js'
import type { CredentialKind, SavedExisting } from './kind.js'
import { tokenObtained } from './token.js'

/**
 * A token the workflow already holds (a standard token from the dashboard, or a project token):
 * the step publishes it, masked, and exposes with it, but neither asks the service for anything
 * nor revokes it, because it did not create it.
 */
export const existingKind: CredentialKind<ExistingSettings, SavedExisting> = {
  async obtain(settings, { log, mask, save, publish }) {
    // Masked again by main at the start; repeated here so the kind is safe on its own.
    mask([settings.tunnelToken])
    log.info(
      `Using the tunnel token of user ${settings.tunnelUser} from input tunnel-token; no request is sent to the credential service.`
    )
    save({ kind: 'existing', tunnelUser: settings.tunnelUser })
    const obtained = tokenObtained({
      flavour: 'existing',
      token: settings.tunnelToken,
      tunnelUser: settings.tunnelUser,
      clientId: settings.tunnelUser,
      tunnelHost: settings.tunnelHost,
      tunnelPort: settings.tunnelPort,
      // The port is the input's, or its documented default: no service answer was read.
      portDefaulted: false
    })
    await publish(obtained)
    return obtained
  },

  async giveBack(saved, { log }) {
    log.info(
      `Nothing to revoke: the tunnel token of user ${printable(saved.tunnelUser)} came from input tunnel-token ` +
        '(credential: existing), so this step did not create it and leaves it valid.'
    )
  },

  describe: saved => `the tunnel token of user ${printable(saved.tunnelUser)}`
}
