/**
 * `share: use`: what a failure after the shared credential opened means. The usual one is the
 * tunnel server refusing the login (a TunnelStartError with failure `auth`), which under `use`
 * has two causes that look the same: the run's credential was revoked, or the server allows one
 * session per credential. This is the one place that failure passes through, so that the
 * diagnosis (asking the service for the token's state, refused-login.ts) wraps it here.
 */
import { ExplainedError } from '../errors.js'
import type { CredentialService } from '../service/client.js'
import { TunnelStartError } from '../tunnel/main/start-failure.js'
import { askTokenStanding, explainRefusedSharedLogin } from './refused-login.js'

/** What an explanation may use: the credential's user, and the service the API key may reach. */
export interface UseFailureContext {
  tunnelUser: string
  apiKey: string
  /** The client for base-url, built on first use. */
  service(): CredentialService
  /** How the host names an option where the user sets it (`input share`, `--share`). */
  label?: (name: string) => string
}

/**
 * The error to fail the step with: for a refused login, one that names the cause the service's
 * token list points to; any other failure as the tunnel or hand-over said it.
 */
export async function explainUseFailure(
  error: unknown,
  context: UseFailureContext
): Promise<unknown> {
  if (!(error instanceof TunnelStartError) || error.failure !== 'auth') return error
  // Through the lister, so that a client that cannot even be built is "cannot tell" too.
  const lister = { listTokens: (apiKey: string) => context.service().listTokens(apiKey) }
  const standing = await askTokenStanding(lister, context.apiKey, context.tunnelUser)
  return new ExplainedError(explainRefusedSharedLogin(standing, error.detail, context.label))
}
