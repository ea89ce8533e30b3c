/**
 * Whether an answer, usable or not, has made a credential at the service: one that must then be
 * revoked, whatever else is wrong with the answer.
 */
import { isObject, tunnelUserOf } from './answer-fields.js'
import { holdsSecret, secretsIn } from './answer-secrets.js'
import { isCleanIdentifier } from '../text/validators.js'

/** A credential the service has issued, whether or not this action can use it. */
export interface IssuedCredential {
  /** As the service sent it: it goes back to the service JSON-encoded, never raw to a log. */
  tunnelUser: string
  /**
   * False when the user holds a secret of the answer (the token sent again as the user): it may
   * then be sent back to the service to revoke it, but never saved in state nor printed.
   */
  nameable: boolean
  /** True when the user is also a clean word that state can hold and post read back. */
  savable: boolean
}

/**
 * The tunnel user of a credential the service has issued: an answer that names one user (a
 * non-empty string) has made a credential, even if its token or the user itself is unusable here
 * (zero-width or bidi characters, a non-ASCII name). From then on it must be revoked, whatever
 * else makes the answer unusable.
 */
export function issuedCredential(raw: unknown): IssuedCredential | undefined {
  if (!isObject(raw)) return undefined
  const tunnelUser = tunnelUserOf(raw)
  if (typeof tunnelUser !== 'string' || tunnelUser === '') return undefined
  const nameable = !holdsSecret(tunnelUser, secretsIn(raw))
  return { tunnelUser, nameable, savable: nameable && isCleanIdentifier(tunnelUser) }
}
