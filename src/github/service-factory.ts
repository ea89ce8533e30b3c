import * as core from '@actions/core'
import type { Clock } from '../core/clock.js'
import type { HttpSettings } from '../core/settings/inputs.js'
import { CredentialService } from '../core/service/client.js'

/**
 * The service client as both steps use it: their clock, their retry settings, and each retry told
 * in the log. Kept apart from the client so the client itself never writes to the runner.
 */
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
    now: clock.now,
    onRetry: ({ attempt, maxAttempts, delayMs, error }) =>
      core.info(
        // ServiceError messages are already made printable; anything else is told only by kind.
        `Attempt ${attempt} of ${maxAttempts} failed (${error instanceof Error ? error.message : 'unknown error'}); ` +
          `retrying in ${(delayMs / 1000).toFixed(1)} s.`
      )
  })
}
