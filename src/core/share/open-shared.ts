/**
 * The setup job's shared-credential output, opened in a job of the same run (`use`, `revoke`):
 * with this job's API key, for this run and project, from this job's credential service.
 */
import { ExplainedError } from '../errors.js'
import type { OptionSource } from '../host.js'
import type { CicdSettings } from '../kinds/cicd.js'
import type { MainSettings } from '../kinds/registry.js'
import { secretsIn } from '../service/answer-secrets.js'
import { parseCredential, type Credential } from '../service/credential.js'
import { printable } from '../text/printable.js'
import { openSealedCredential, ShareRefusal } from './sealed-credential.js'
import type { SharePlan } from './share-plan.js'
import { payloadBaseUrl } from './shared-payload.js'

/** The shared credential opened, checked and masked, with the settings of this job. */
export interface OpenedShare {
  credential: Credential
  settings: CicdSettings
}

/**
 * Opens the blob, masks its token at once, and checks it as an answer, before the step prints
 * anything. Throws one ExplainedError naming the cause: not ours, another run, repository or
 * project, tampered, or another service. Expiry is the caller's: `use` refuses it, `revoke` not.
 */
export function openSharedCredential(
  plan: Extract<SharePlan, { blob: string }>,
  settings: MainSettings,
  { mask, options }: { mask(secrets: string[]): void; options: OptionSource }
): OpenedShare {
  // The options check lets only cicd share; anything else here is a slip in the code.
  if (settings.kind !== 'cicd') throw new Error(`share ${plan.mode} reached kind ${settings.kind}`)
  let payload: unknown
  try {
    payload = openSealedCredential(plan.blob, settings.apiKey, {
      system: plan.scope.system,
      repository: plan.scope.repository,
      runId: plan.scope.runId,
      project: settings.project
    })
  } catch (error) {
    if (error instanceof ShareRefusal) throw new ExplainedError(error.message)
    throw error
  }
  mask(secretsIn(payload))
  const sealedBaseUrl = payloadBaseUrl(payload)
  if (sealedBaseUrl !== settings.baseUrl) {
    // Sealed under the API key, so the setup job wrote it; still outside text in this job's log.
    throw new ExplainedError(
      `The shared credential comes from the credential service at ${printable(sealedBaseUrl ?? 'an unnamed address', 200)}, but ${options.label('base-url')} is ${settings.baseUrl}. ` +
        `The API key goes only to ${options.label('base-url')}: set the same base-url in every job of the run.`
    )
  }
  const credential = parseCredential(payload, settings)
  return { credential, settings }
}
