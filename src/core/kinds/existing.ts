import {
  readSelfNamedLogin,
  readTunnelToken,
  type SelfNamedLogin
} from '../settings/login-options.js'
import type { CommonSettings } from '../settings/types.js'
import { printable } from '../text/printable.js'
import { isCleanIdentifier } from '../text/validators.js'
import type { CredentialKind, KnownUser } from './kind.js'
import { tokenObtained, type TokenKindWords } from './token.js'
import { TUNNEL_TOKEN_OPTION } from '../options/option-facts.js'

/** A token the workflow already holds: nothing is requested and nothing revoked. */
export interface ExistingSettings extends CommonSettings {
  kind: 'existing'
  tunnelToken: string
  tunnelUser: string
  tunnelHost: string
  tunnelPort: number
  knownUser: KnownUser
}

/** What main saves: only the user, for post's message. */
export interface SavedExisting {
  kind: 'existing'
  tunnelUser: string
}

const WORDS: TokenKindWords = {
  kind: 'existing',
  label: 'existing (a token you hold; not created or revoked by this step)',
  expiryUnknown: true,
  verb: 'Using'
}

/**
 * A token the workflow already holds (a standard token from the dashboard, or a project token):
 * the step publishes it, masked, and exposes with it, but neither asks the service for anything
 * nor revokes it, because it did not create it.
 */
const EXISTING_LOGIN: SelfNamedLogin = {
  kind: 'existing',
  userOption: 'tunnel-user',
  whatTheUserIs: 'the tunnel user your token belongs to',
  userChangeable: false,
  whyTheHost: 'set it to the hostname of the tunnel server your token is for.'
}

export const existingKind: CredentialKind<ExistingSettings, SavedExisting> = {
  readSettings(options, common) {
    const tunnelToken = readTunnelToken(options, 'existing')
    const login = readSelfNamedLogin(options, EXISTING_LOGIN, [tunnelToken])
    return { ...common, kind: 'existing', tunnelToken, tunnelUser: login.knownUser.name, ...login }
  },

  sendsRequests: false,
  revocation: 'held',

  async obtain(settings, { log, mask, save, publish }) {
    // Masked again by main at the start; repeated here so the kind is safe on its own.
    mask([settings.tunnelToken])
    log.info(
      `Using the tunnel token of user ${settings.tunnelUser} from ${settings.optionLabel(TUNNEL_TOKEN_OPTION)}; no request is sent to the credential service.`
    )
    save({ kind: 'existing', tunnelUser: settings.tunnelUser })
    const obtained = tokenObtained(
      {
        token: settings.tunnelToken,
        tunnelUser: settings.tunnelUser,
        clientId: settings.tunnelUser,
        tunnelHost: settings.tunnelHost,
        tunnelPort: settings.tunnelPort,
        // The port is the option's, or its documented default: no service answer was read.
        portDefaulted: false
      },
      WORDS
    )
    obtained.login.userFrom = settings.knownUser.from
    await publish(obtained)
    return obtained
  },

  readSaved: ({ tunnelUser }) =>
    isCleanIdentifier(tunnelUser) ? { kind: 'existing', tunnelUser } : undefined,

  async revoke(saved, { settings, log }) {
    log.info(
      `Nothing to revoke: the tunnel token of user ${printable(saved.tunnelUser)} came from ${settings.optionLabel(TUNNEL_TOKEN_OPTION)} ` +
        '(credential: existing), so this step did not create it and leaves it valid.'
    )
    return 'kept'
  },

  describe: saved => `the tunnel token of user ${printable(saved.tunnelUser)}`
}
