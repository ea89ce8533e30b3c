import * as core from '@actions/core'
import type { Clock } from './clock.js'
import type { HttpSettings } from './inputs.js'
import { CredentialService } from './service.js'

/** The service client both steps use, with retries reported on the step's log. */
export function createService(
  baseUrl: string,
  http: HttpSettings,
  clock: Clock
): CredentialService {
  return new CredentialService({
    baseUrl,
    maxAttempts: http.maxAttempts,
    timeoutSeconds: http.timeoutSeconds,
    sleep: clock.sleep,
    random: clock.random,
    onRetry: ({ attempt, maxAttempts, delayMs, error }) =>
      core.info(
        `Attempt ${attempt} of ${maxAttempts} failed (${error instanceof Error ? error.message : String(error)}); ` +
          `retrying in ${(delayMs / 1000).toFixed(1)} s.`
      )
  })
}
