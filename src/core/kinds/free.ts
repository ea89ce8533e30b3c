import { secretsIn } from '../service/answer-secrets.js'
import { readBaseUrl } from '../settings/common.js'
import { readTunnelHost, readTunnelPort } from '../settings/login-options.js'
import { capitalised } from '../settings/option-values.js'
import type { CommonSettings } from '../settings/types.js'
import { printable } from '../text/printable.js'
import { expiryNote } from '../expiry.js'
import type { CredentialKind } from './kind.js'
import {
  type SavedToken,
  type TokenKindWords,
  acceptIssuedToken,
  readSavedToken,
  tokenObtained
} from './token.js'
import { API_KEY_OPTION } from '../options/option-facts.js'

/** A free 5-minute token from create-ephemeral-token, without a key. */
export interface FreeSettings extends CommonSettings {
  kind: 'free'
  /** True when `auto` fell back to a free credential because no API key was given. */
  fellBackToFree: boolean
  baseUrl: string
  tunnelHost?: string
  tunnelPort?: number
}

const WORDS: TokenKindWords = {
  kind: 'free',
  label: 'free (5 minutes, not revocable)',
  verb: 'Provisioned'
}

/** A free 5-minute token: no API key, and nothing to revoke, since the service offers no way to. */
export const freeKind: CredentialKind<FreeSettings, SavedToken> = {
  readSettings(options, common, { auto }) {
    const tunnelHost = readTunnelHost(options)
    const tunnelPort = readTunnelPort(options)
    return {
      ...common,
      kind: 'free',
      fellBackToFree: auto,
      baseUrl: readBaseUrl(options),
      tunnelHost,
      tunnelPort
    }
  },

  sendsRequests: true,
  revocation: 'unrevocable',

  async obtain(settings, context) {
    const { service, log, mask, publish } = context
    if (settings.fellBackToFree) {
      log.warning(
        `${capitalised(settings.optionLabel(API_KEY_OPTION))} is empty, so ${settings.optionLabel('credential')} auto falls back to a free 5-minute credential. ` +
          'This is expected where the CI system withholds secrets (on GitHub, pull requests from forks and Dependabot runs).'
      )
    }
    log.info(`Requesting a free 5-minute tunnel credential from ${settings.baseUrl}`)
    const raw = await service().createFreeCredential()
    mask(secretsIn(raw))
    const credential = acceptIssuedToken(raw, 'free', settings, context)
    const obtained = tokenObtained(credential, WORDS)
    // The service ends a free credential's sessions when the credential ends.
    obtained.login.lifetimeNote =
      'The credential is free, so the tunnel ends when the credential does: after 5 minutes (limits.max_uptime_minutes)' +
      `${credential.expiresAt ? `, at ${credential.expiresAt}` : ''}.`
    await publish(obtained)
    return obtained
  },

  readSaved: saved => readSavedToken('free', saved),

  async revoke(saved, { log }) {
    log.info(`Nothing to revoke: free credentials cannot be revoked.${expiryNote(saved)}`)
    return 'nothing'
  },

  describe: saved => `the free credential of user ${printable(saved.tunnelUser)}`
}
