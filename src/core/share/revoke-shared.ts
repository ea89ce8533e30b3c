/**
 * `share: revoke`, in the run's final job: the setup job's credential opened and revoked by its
 * tunnel user at base-url. Gone already (404) or expired is what was asked for; nothing is
 * exported, and post has nothing to do.
 */
import { ExplainedError } from '../errors.js'
import type { Host } from '../host.js'
import type { MainSettings } from '../kinds/registry.js'
import { hasExpired } from '../expiry.js'
import { createService } from '../service/factory.js'
import { explainFailure } from '../service/failures.js'
import { openSharedCredential } from './open-shared.js'
import type { SharePlan } from './share-plan.js'

/** Revokes the run's credential; throws an ExplainedError when it may still live. */
export async function revokeSharedCredential(
  plan: Extract<SharePlan, { mode: 'revoke' }>,
  readSettings: () => MainSettings,
  host: Host
): Promise<void> {
  const { log, clock, options } = host
  if ('notice' in plan) {
    log.notice(plan.notice)
    return
  }
  const { credential, settings } = openSharedCredential(plan, readSettings(), host)
  if (settings.tunnel) {
    log.warning(
      `${options.label('expose')} is ignored: ${options.label('share')} revoke opens no tunnel, it only revokes the run's credential.`
    )
  }
  const user = credential.tunnelUser
  const service = createService(settings.baseUrl, settings.http, clock, log)
  let outcome: 'revoked' | 'already-gone'
  try {
    outcome = await service.revokeCredential(settings.apiKey, user)
  } catch (error) {
    const reason = explainFailure(error, {
      baseUrl: settings.baseUrl,
      nowMs: clock.now(),
      label: name => options.label(name)
    })
    // The service decides whether an expired credential is gone; its failure then is information.
    if (hasExpired(credential.expiresAt, clock.now())) {
      log.info(
        `Could not revoke the run's shared credential (tunnel user ${user}): ${reason} It expired at ${credential.expiresAt}, so it is no longer valid anyway.`
      )
      return
    }
    throw new ExplainedError(
      `Could not revoke the run's shared credential (tunnel user ${user}): ${reason} It stays valid until ${credential.expiresAt ?? 'its expiry'}; run this job again to retry.`
    )
  }
  log.info(
    outcome === 'revoked'
      ? `Revoked the run's shared credential (tunnel user ${user}).`
      : `The run's shared credential (tunnel user ${user}) was already revoked or has expired (404); nothing left to do.`
  )
}
