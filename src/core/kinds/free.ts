import { secretsIn } from '../service/answer-secrets.js'
import type { FreeSettings } from '../settings/inputs.js'
import { printable } from '../text/printable.js'
import { expiryNote } from '../expiry.js'
import type { CredentialKind, SavedToken } from './kind.js'
import { acceptIssuedToken, tokenObtained } from './token.js'

/** A free 5-minute token: no API key, and nothing to revoke, since the service offers no way to. */
export const freeKind: CredentialKind<FreeSettings, SavedToken> = {
  async obtain(settings, context) {
    const { service, log, mask, publish } = context
    if (settings.fellBackToFree) {
      log.warning(
        'Input api-key is empty, so `credential: auto` falls back to a free 5-minute credential. ' +
          'This is expected in pull requests from forks and in Dependabot runs, which get no secrets.'
      )
    }
    log.info(`Requesting a free 5-minute tunnel credential from ${settings.baseUrl}`)
    const raw = await service().createFreeCredential()
    mask(secretsIn(raw))
    const credential = acceptIssuedToken(raw, 'free', settings, context)
    const obtained = tokenObtained(credential)
    await publish(obtained)
    return obtained
  },

  async giveBack(saved, { log }) {
    log.info(`Nothing to revoke: free credentials cannot be revoked.${expiryNote(saved)}`)
  },

  describe: saved => `the free credential of user ${printable(saved.tunnelUser)}`
}
