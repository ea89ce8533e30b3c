import { secretsIn } from '../service/answer-secrets.js'
import { issuedCredential } from '../service/issued-credential.js'
import type { CicdSettings } from '../settings/inputs.js'
import { printable } from '../text/printable.js'
import { expiryNote } from '../expiry.js'
import { requireRevokeApiKey, shouldRevoke } from './revoke-guard.js'
import { giveBackUnused } from './give-back-unused.js'
import type { CredentialKind, SavedToken } from './kind.js'
import { acceptIssuedToken, tokenObtained } from './token.js'

/** A CI/CD token: provisioned with the API key, revoked by tunnel user in post. */
export const cicdKind: CredentialKind<CicdSettings, SavedToken> = {
  async obtain(settings, context) {
    const { service, log, mask, save, publish } = context
    // project and environment are single-line plain text: inputs.ts rejected anything else.
    const environment = settings.environment ? ` (${settings.environment})` : ''
    log.info(
      `Provisioning tunnel credentials for project "${settings.project}"${environment} from ${settings.baseUrl}`
    )
    const client = service()
    const raw = await client.provisionCredential(settings)
    // Masked while still raw, so that even a response that fails validation cannot leak it later.
    mask(secretsIn(raw))
    // Once the answer names a user, the service has issued a credential: any failure from there
    // on revokes it before the step fails, and state names it first, so that post revokes it if
    // that revoke fails too. A user that holds the token, or that state cannot carry, is not saved.
    const issued = issuedCredential(raw)
    try {
      if (issued?.savable) {
        save({
          kind: 'cicd',
          tunnelUser: issued.tunnelUser,
          baseUrl: settings.baseUrl,
          rejected: true
        })
      }
      const credential = acceptIssuedToken(raw, 'cicd', settings, context)
      const obtained = tokenObtained(credential, settings)
      await publish(obtained)
      return obtained
    } catch (error) {
      if (issued !== undefined) {
        await giveBackUnused(
          `the credential of ${issued.nameable ? `tunnel user ${printable(issued.tunnelUser, 100)}` : 'a tunnel user that holds the token'}`,
          () => client.revokeCredential(settings.apiKey, issued.tunnelUser),
          context,
          issued.savable
        )
      }
      throw error
    }
  },

  async giveBack(saved, { settings, service, log }) {
    if (!shouldRevoke(settings, saved)) {
      log.info(
        `Not revoking tunnel user ${printable(saved.tunnelUser)}: input revoke is false.${expiryNote(saved)}`
      )
      return
    }
    requireRevokeApiKey(settings)
    const outcome = await service().revokeCredential(settings.apiKey, saved.tunnelUser)
    log.info(
      outcome === 'revoked'
        ? `Revoked the tunnel token of user ${printable(saved.tunnelUser)}.`
        : `The tunnel token of user ${printable(saved.tunnelUser)} was already revoked or has expired (404); nothing left to do.`
    )
  },

  describe: saved => `the tunnel token of user ${printable(saved.tunnelUser)}`
}
