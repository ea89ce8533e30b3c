/**
 * Why the tunnel server refused a shared credential's login. An SSH refusal carries no reason,
 * and under `share: use` two causes look the same: the credential was revoked (the final job of
 * an earlier attempt revoked it, and "re-run failed jobs" reused the old output), or the server
 * allows one session per credential. The service's token list tells them apart.
 */
import type { ListedToken } from '../service/token-list.js'
import { ServiceError } from '../service/service-error.js'
import { describeUnexpected } from '../text/describe-error.js'
import { printable } from '../text/printable.js'

/** What the service says of the shared token, or why it could not say. */
export type TokenStanding =
  { state: 'active' } | { state: 'gone' } | { state: 'unknown'; why: string }

/** The one service call the diagnosis needs; the client's listTokens. */
export interface TokenLister {
  listTokens(apiKey: string): Promise<ListedToken[]>
}

/**
 * Asks the service for the token's state by its tunnel user. A token the list does not hold is
 * gone as surely as one it lists as revoked; any failure to ask is `unknown`, never thrown: the
 * login was refused either way, and the message must still name the causes.
 */
export async function askTokenStanding(
  service: TokenLister,
  apiKey: string,
  tunnelUser: string
): Promise<TokenStanding> {
  let tokens: ListedToken[]
  try {
    tokens = await service.listTokens(apiKey)
  } catch (error) {
    return { state: 'unknown', why: whyUnknown(error) }
  }
  const active = tokens.some(token => token.tunnelUser === tunnelUser && token.status === 'active')
  return { state: active ? 'active' : 'gone' }
}

/** What to do about a revoked shared credential; also said when `use` finds it before any login. */
export const REVOKED_ADVICE =
  'the shared credential was revoked (the final job of an earlier attempt may have revoked it): re-run all jobs'

/**
 * The step's error after a refused login under `share: use`. `detail` is the tunnel process's
 * report (outside text, printed through printable); `label` names the option where the user sets it.
 */
export function explainRefusedSharedLogin(
  standing: TokenStanding,
  detail: string,
  label: (name: string) => string = name => name
): string {
  const refused = `The tunnel did not start: ${printable(detail, 400)}.`
  const oneSession = `this server allows one session per credential: set ${label('share')} to off`
  switch (standing.state) {
    case 'gone':
      return `${refused} The service no longer lists the token as active: ${REVOKED_ADVICE}, so that the setup job shares a new credential.`
    case 'active':
      return `${refused} The service lists the token as active, so ${oneSession}, and each job provisions its own credential.`
    case 'unknown':
      return (
        `${refused} The service could not tell whether the token is still active (${standing.why}), so it is one of two causes: ` +
        `${REVOKED_ADVICE}; or ${oneSession}.`
      )
  }
}

/** A short reason, quoting only what the client already cleaned; a 403 names the likely scope. */
function whyUnknown(given: unknown): string {
  // Retries wrap the last failure (AttemptsExhausted, RetryAfterTooLong): that one says why.
  const error = given instanceof Error && given.cause instanceof ServiceError ? given.cause : given
  if (!(error instanceof ServiceError)) return describeUnexpected(error)
  // The spec does not say which scope user-tokens-list needs; token:read is the one that reads.
  const scope =
    error.status === 403 && !error.message.includes('scope')
      ? '; the API key may lack the token:read scope'
      : ''
  return `user-tokens-list: ${printable(error.message, 200)}${scope}`
}
