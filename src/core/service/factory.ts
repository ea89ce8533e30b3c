import type { Clock } from '../clock.js'
import type { StepLog } from '../host.js'
import { CredentialService } from './client.js'

/** How the service is asked: attempts per request, and the time limit of one. */
export interface HttpSettings {
  maxAttempts: number
  timeoutSeconds: number
  /** PEM certificates trusted besides Node's own (ca-file); absent: Node's alone. */
  ca?: string
}

/**
 * The service client as both steps use it: their clock, their retry settings, and each retry told
 * in the step's log. Kept apart from the client so the client itself never writes to a log.
 */
export function createService(
  baseUrl: string,
  http: HttpSettings,
  clock: Clock,
  log: StepLog
): CredentialService {
  return new CredentialService({
    baseUrl,
    maxAttempts: http.maxAttempts,
    timeoutSeconds: http.timeoutSeconds,
    ...(http.ca !== undefined && { ca: http.ca }),
    sleep: clock.sleep,
    random: clock.random,
    now: clock.now,
    onRetry: ({ attempt, maxAttempts, delayMs, error }) =>
      log.info(
        // ServiceError messages are already made printable; anything else is told only by kind.
        `Attempt ${attempt} of ${maxAttempts} failed (${error instanceof Error ? error.message : 'unknown error'}); ` +
          `retrying in ${(delayMs / 1000).toFixed(1)} s.`
      )
  })
}
