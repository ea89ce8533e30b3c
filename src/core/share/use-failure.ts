/**
 * `share: use`: what a failure after the shared credential opened means. The usual one is the
 * tunnel server refusing the login (a TunnelStartError with failure `auth`), which under `use`
 * has two causes that look the same: the run's credential was revoked, or the server allows one
 * session per credential. This is the one place that failure passes through, so that the
 * diagnosis (asking the service for the token's state) wraps it here.
 */
import type { CredentialService } from '../service/client.js'

/** What an explanation may use: the credential's user, and the service the API key may reach. */
export interface UseFailureContext {
  tunnelUser: string
  apiKey: string
  /** The client for base-url, built on first use. */
  service(): CredentialService
}

/** The error to fail the step with; today the failure itself, as the tunnel or hand-over said it. */
export async function explainUseFailure(
  error: unknown,
  _context: UseFailureContext
): Promise<unknown> {
  return error
}
