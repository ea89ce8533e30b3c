/**
 * `share: create`: the credential main just provisioned, sealed for the other jobs of the run as
 * the `shared-credential` output. The cicd kind calls this inside its own obtain, so that a
 * credential that cannot be shared is revoked at once, as any credential that cannot be handed
 * over is.
 */
import { ExplainedError } from '../errors.js'
import type { Obtained, ShareForRun } from '../kinds/kind.js'
import type { Credential } from '../service/credential.js'
import { sealCredential } from './sealed-credential.js'
import { sharedPayload } from './shared-payload.js'

/**
 * The credential sealed under the API key for the run and project, as what main hands over with
 * it. Throws an ExplainedError for a credential without an expiry: shared, it would outlive the run.
 */
export function withSharedCredential(
  obtained: Obtained,
  credential: Credential,
  settings: { apiKey: string; project: string; baseUrl: string },
  share: ShareForRun
): Obtained {
  if (credential.expiresAt === undefined) {
    throw new ExplainedError(
      `The service issued a credential without an expiry, although ${share.label('ttl-minutes')} was set; ` +
        `a shared credential lives for the whole run, so it must expire. It was revoked, and nothing was shared. ` +
        `Report this to the service operator, or set ${share.label('share')} to off.`
    )
  }
  const blob = sealCredential(sharedPayload(credential, settings.baseUrl), settings.apiKey, {
    system: share.scope.system,
    repository: share.scope.repository,
    runId: share.scope.runId,
    project: settings.project
  })
  return {
    ...obtained,
    outputs: { ...obtained.outputs, 'shared-credential': blob },
    announcement: `${obtained.announcement} Shared with the other jobs of this run as the shared-credential output; it is left for the final job (share: revoke) to revoke.`
  }
}
