/**
 * `share: use`: the run's credential, opened from the setup job's shared-credential output instead
 * of provisioned, then handed over exactly as a provisioning step would hand it (the same
 * variables, outputs and summary), with `expose` as usual. It belongs to the run: this job never
 * revokes it, not when it fails, not in post.
 */
import { ExplainedError } from '../errors.js'
import type { OptionSource } from '../host.js'
import type { ObtainContext, Obtained } from '../kinds/kind.js'
import { hasExpired } from '../expiry.js'
import { savedTokenOf, tokenObtained, type SavedToken } from '../kinds/token.js'
import type { OpenedShare } from './open-shared.js'
import { askTokenStanding, REVOKED_ADVICE } from './refused-login.js'
import { explainUseFailure } from './use-failure.js'

/**
 * A credential this job is to use must still live: one that expired is refused before the tunnel
 * would try it. Only advice (the service decides), but the clear cause beats a refused login.
 */
export function checkUsable({ credential }: OpenedShare, options: OptionSource, now: number): void {
  if (credential.expiresAt === undefined) {
    throw new ExplainedError(
      'The shared credential names no expiry, which the setup job never shares: pass its shared-credential output unchanged.'
    )
  }
  if (hasExpired(credential.expiresAt, now)) {
    throw new ExplainedError(
      `The shared credential expired at ${credential.expiresAt}: the run outlived ${options.label('ttl-minutes')}. Re-run all jobs with a longer ${options.label('ttl-minutes')} in the setup job.`
    )
  }
}

/**
 * The kind's obtain, for a credential this job did not provision: saves a record post leaves
 * alone, and hands over what a provisioning step would. A failure revokes nothing.
 */
export async function useSharedCredential(
  { credential, settings }: OpenedShare,
  context: ObtainContext<SavedToken>,
  /** How the host names an option, for the refused-login diagnosis. */
  label?: (name: string) => string
): Promise<Obtained> {
  const { tunnelUser, tunnelHost, tunnelPort, expiresAt } = credential
  const obtained: Obtained = {
    ...tokenObtained(
      credential,
      { kind: 'cicd', label: 'cicd, shared by the run', verb: 'Using' },
      settings
    ),
    announcement: `Using the shared credential of tunnel user ${tunnelUser} for ${tunnelHost}:${tunnelPort}, valid until ${expiresAt}.`
  }
  // With a tunnel, the server's login is the test (a refusal is diagnosed after it). Without one,
  // nothing else would notice a revoked credential before later steps get it: the service does.
  if (!settings.tunnel) await checkStillActive(tunnelUser, settings.apiKey, context)
  // Post stops this job's tunnel, and leaves the credential to the run's final job.
  context.save({ ...savedTokenOf('cicd', credential, settings.baseUrl), shared: true })
  try {
    await context.publish(obtained)
  } catch (error) {
    context.clearSaved()
    throw await explainUseFailure(error, {
      tunnelUser,
      apiKey: settings.apiKey,
      service: context.service,
      ...(label && { label })
    })
  }
  return obtained
}

/**
 * Refuses a shared credential the service no longer lists as active (revoked by the final job of
 * an earlier attempt, or expired); when the service cannot tell, says so and goes on, since the
 * credential opened and has not expired by this clock.
 */
async function checkStillActive(
  tunnelUser: string,
  apiKey: string,
  { service, log }: Pick<ObtainContext<SavedToken>, 'service' | 'log'>
): Promise<void> {
  const lister = { listTokens: (key: string) => service().listTokens(key) }
  const standing = await askTokenStanding(lister, apiKey, tunnelUser)
  if (standing.state === 'gone') {
    throw new ExplainedError(
      `The service no longer lists the token of tunnel user ${tunnelUser} as active: ${REVOKED_ADVICE}, so that the setup job shares a new credential. Nothing was exported.`
    )
  }
  if (standing.state === 'unknown') {
    log.info(
      `Could not ask the service whether the shared credential is still active (${standing.why}); using it as the setup job shared it.`
    )
  }
}
