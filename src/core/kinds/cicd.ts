import { secretsIn } from '../service/answer-secrets.js'
import { issuedCredential } from '../service/issued-credential.js'
import { ExplainedError } from '../errors.js'
import { readBaseUrl } from '../settings/common.js'
import { readApiKey, readTunnelHost, readTunnelPort } from '../settings/login-options.js'
import { optionNamed, readOneLine, readWholeNumber } from '../settings/option-values.js'
import type { CommonSettings } from '../settings/types.js'
import { printable } from '../text/printable.js'
import { expiryNote } from '../expiry.js'
import { leftToRun, requireRevokeApiKey, shouldRevoke } from './revoke-guard.js'
import { revokeUnused } from './revoke-unused.js'
import type { CredentialKind } from './kind.js'
import { withSharedCredential } from '../share/create-shared.js'
import {
  acceptIssuedToken,
  readSavedToken,
  savedTokenOf,
  tokenObtained,
  type SavedToken,
  type TokenKindWords
} from './token.js'

/** A CI/CD token from credential-provision, with the API key. */
export interface CicdSettings extends CommonSettings {
  kind: 'cicd'
  apiKey: string
  project: string
  environment: string
  ttlMinutes?: number
  baseUrl: string
  tunnelHost?: string
  tunnelPort?: number
}

const WORDS: TokenKindWords = { kind: 'cicd', label: 'cicd', verb: 'Provisioned' }

/** A CI/CD token: provisioned with the API key, revoked by tunnel user in post. */
export const cicdKind: CredentialKind<CicdSettings, SavedToken> = {
  readSettings(options, common) {
    const tunnelHost = readTunnelHost(options)
    const tunnelPort = readTunnelPort(options)
    const apiKey = readApiKey(options, 'cicd')
    const project = readOneLine(options, 'project')
    if (!project) {
      throw new ExplainedError(
        `${optionNamed(options, 'project')} is empty: set it to the project slug to provision for.`
      )
    }
    return {
      ...common,
      kind: 'cicd',
      apiKey,
      project,
      environment: readOneLine(options, 'environment'),
      ttlMinutes: readWholeNumber(options, 'ttl-minutes', 1),
      baseUrl: readBaseUrl(options),
      tunnelHost,
      tunnelPort
    }
  },

  sendsRequests: true,
  revocation: 'revoke',

  async obtain(settings, context) {
    const { service, log, mask, save, publish } = context
    // project and environment are single-line plain text: readSettings rejected anything else.
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
      const provisioned = tokenObtained(credential, WORDS, settings)
      const { shareForRun } = context
      const obtained = shareForRun
        ? withSharedCredential(provisioned, credential, settings, shareForRun)
        : provisioned
      await publish(obtained)
      if (shareForRun) {
        // Handed over: the credential now belongs to the run, and post leaves it alone.
        save({ ...savedTokenOf('cicd', credential, settings.baseUrl), shared: true })
      }
      return obtained
    } catch (error) {
      if (issued !== undefined) {
        await revokeUnused(
          `the credential of ${issued.nameable ? `tunnel user ${printable(issued.tunnelUser, 100)}` : 'a tunnel user that holds the token'}`,
          () => client.revokeCredential(settings.apiKey, issued.tunnelUser),
          context,
          issued.savable
        )
      }
      throw error
    }
  },

  readSaved: saved => readSavedToken('cicd', saved),

  async revoke(saved, { settings, service, log }) {
    if (leftToRun(settings, saved)) {
      log.info(
        `Not revoking tunnel user ${printable(saved.tunnelUser)}: it is the run's shared credential, which the run's final job revokes (${settings.optionLabel('share')} revoke).${expiryNote(saved)}`
      )
      return 'kept'
    }
    if (!shouldRevoke(settings, saved)) {
      log.info(
        `Not revoking tunnel user ${printable(saved.tunnelUser)}: ${settings.optionLabel('revoke')} is false.${expiryNote(saved)}`
      )
      return 'kept'
    }
    requireRevokeApiKey(settings)
    const outcome = await service().revokeCredential(settings.apiKey, saved.tunnelUser)
    log.info(
      outcome === 'revoked'
        ? `Revoked the tunnel token of user ${printable(saved.tunnelUser)}.`
        : `The tunnel token of user ${printable(saved.tunnelUser)} was already revoked or has expired (404); nothing left to do.`
    )
    return 'revoked'
  },

  describe: saved => `the tunnel token of user ${printable(saved.tunnelUser)}`
}
