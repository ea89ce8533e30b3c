import { parseCredential, secretsIn } from '../credential.js'
import { ActionError } from '../errors.js'
import type { CicdSettings } from '../inputs.js'
import type { CredentialKind, SavedToken } from './kind.js'
import { tokenObtained } from './token.js'

/** A CI/CD token: provisioned with the API key, revoked by tunnel user in post. */
export const cicdKind: CredentialKind<CicdSettings, SavedToken> = {
  async obtain(settings, { service, log, mask, save }) {
    log.info(
      `Provisioning tunnel credentials for project "${settings.project}"` +
        `${settings.environment ? ` (${settings.environment})` : ''} from ${settings.baseUrl}`
    )
    const raw = await service().provisionCredential(settings)
    // Masked while still raw, so that even a response that fails validation cannot leak it later.
    mask(secretsIn(raw))
    const credential = parseCredential(raw, 'cicd', settings)
    if (credential.portDefaulted) {
      log.notice(
        `The service sent no tunnel_port; using the default port ${credential.tunnelPort}.`
      )
    }
    save({
      kind: 'cicd',
      tunnelUser: credential.tunnelUser,
      ...(credential.expiresAt && { expiresAt: credential.expiresAt })
    })
    return tokenObtained(credential, settings)
  },

  async giveBack(saved, { settings, service, log }) {
    const until = saved.expiresAt ? ` It expires by itself at ${saved.expiresAt}.` : ''
    if (!settings.revoke) {
      log.info(`Not revoking tunnel user ${saved.tunnelUser}: input revoke is false.${until}`)
      return
    }
    if (!settings.apiKey) {
      throw new ActionError(
        'input api-key is empty in the post step, so the revoke request cannot be authenticated.'
      )
    }
    const outcome = await service().revokeCredential(settings.apiKey, saved.tunnelUser)
    log.info(
      outcome === 'revoked'
        ? `Revoked the tunnel token of user ${saved.tunnelUser}.`
        : `The tunnel token of user ${saved.tunnelUser} was already revoked or has expired (404); nothing left to do.`
    )
  },

  describe: saved => `the tunnel token of user ${saved.tunnelUser}`
}
