import { parseCredential, secretsIn } from '../credential.js'
import type { FreeSettings } from '../inputs.js'
import { printable } from '../printable.js'
import { until } from './expiry-note.js'
import type { CredentialKind, SavedToken } from './kind.js'
import { tokenObtained } from './token.js'

/** A free 5-minute token: no API key, and nothing to revoke, since the service offers no way to. */
export const freeKind: CredentialKind<FreeSettings, SavedToken> = {
  async obtain(settings, { service, log, mask, save, publish }) {
    if (settings.fellBackToFree) {
      log.warning(
        'Input api-key is empty, so `credential: auto` falls back to a free 5-minute credential. ' +
          'This is expected in pull requests from forks and in Dependabot runs, which get no secrets.'
      )
    }
    log.info(`Requesting a free 5-minute tunnel credential from ${settings.baseUrl}`)
    const raw = await service().createFreeCredential()
    mask(secretsIn(raw))
    const credential = parseCredential(raw, 'free', settings)
    if (credential.portDefaulted) {
      log.notice(
        `The service sent no tunnel_port; using the default port ${credential.tunnelPort}.`
      )
    }
    save({
      kind: 'free',
      tunnelUser: credential.tunnelUser,
      baseUrl: settings.baseUrl,
      ...(credential.expiresAt && { expiresAt: credential.expiresAt })
    })
    const obtained = tokenObtained(credential)
    await publish(obtained)
    return obtained
  },

  async giveBack(saved, { log }) {
    log.info(`Nothing to revoke: free credentials cannot be revoked.${until(saved)}`)
  },

  describe: saved => `the free credential of user ${printable(saved.tunnelUser)}`
}
