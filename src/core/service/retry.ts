/** Why one attempt failed, as far as retrying is concerned. */
export interface AttemptFailure {
  /** Network errors, timeouts, 429 and 5xx may succeed on another try; 4xx answers will not. */
  retryable: boolean
  /** The service's `retry_after`, in seconds, when it sent one. */
  retryAfterSeconds?: number
}

export interface RetryOptions {
  maxAttempts: number
  sleep: (ms: number) => Promise<void>
  /** Returns a number in [0, 1); injected so backoff is testable. */
  random: () => number
  /** Called before each wait, to tell the user what is happening. */
  onRetry?: (info: {
    attempt: number
    maxAttempts: number
    delayMs: number
    error: unknown
  }) => void
}

/** Longest `retry_after` worth sleeping through; past it the step fails at once and says when to retry. */
export const MAX_RETRY_AFTER_SECONDS = 60
const BASE_DELAY_MS = 1000
const MAX_DELAY_MS = 10_000

/** Thrown when the service asks us to wait longer than a CI step should sleep. */
export class RetryAfterTooLong extends Error {
  constructor(
    readonly cause: unknown,
    readonly retryAfterSeconds: number
  ) {
    super(`retry_after of ${retryAfterSeconds} s exceeds ${MAX_RETRY_AFTER_SECONDS} s`)
    this.name = 'RetryAfterTooLong'
  }
}

/** Thrown when every attempt failed; `cause` is the last failure. */
export class AttemptsExhausted extends Error {
  constructor(
    readonly cause: unknown,
    readonly attempts: number
  ) {
    super(`gave up after ${attempts} attempt(s)`)
    this.name = 'AttemptsExhausted'
  }
}

/**
 * Runs `attempt` until it succeeds, a failure is not retryable, or attempts run out.
 * `classify` tells which errors are worth another try.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  classify: (error: unknown) => AttemptFailure,
  options: RetryOptions
): Promise<T> {
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt()
    } catch (error) {
      const failure = classify(error)
      if (!failure.retryable) throw error
      if (
        failure.retryAfterSeconds !== undefined &&
        failure.retryAfterSeconds > MAX_RETRY_AFTER_SECONDS
      ) {
        throw new RetryAfterTooLong(error, failure.retryAfterSeconds)
      }
      if (attemptNumber >= options.maxAttempts) throw new AttemptsExhausted(error, attemptNumber)
      const delayMs = backoffDelay(attemptNumber, failure.retryAfterSeconds, options.random)
      options.onRetry?.({
        attempt: attemptNumber,
        maxAttempts: options.maxAttempts,
        delayMs,
        error
      })
      await options.sleep(delayMs)
    }
  }
}

/**
 * Exponential backoff with jitter (half fixed, half random), so parallel jobs that failed together
 * do not retry together. A `retry_after` from the service wins: it knows when the window frees.
 */
export function backoffDelay(
  attemptNumber: number,
  retryAfterSeconds: number | undefined,
  random: () => number
): number {
  if (retryAfterSeconds !== undefined) return Math.max(0, retryAfterSeconds) * 1000
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attemptNumber - 1))
  return Math.round(ceiling / 2 + (ceiling / 2) * random())
}
