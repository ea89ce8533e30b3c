/**
 * What a workflow author needs after a 429: when the service will take the next request, as a
 * time anyone can compare with the clock and as a wait, and, for `credential-provision`, the way
 * out for a pipeline whose many jobs each provision: one credential per run (`share`).
 */
import type { Endpoint } from './service-error.js'

/** The service's window: with no retry_after, a slot frees within it at the latest. */
const WINDOW_SECONDS = 3600

/**
 * "after 2026-11-23T11:00:00Z (in 1 h)": whole seconds, rounded up so that the time named is never
 * early. A date past what Date can hold (a retry_after of 1e13 s) is no date: then "later".
 */
export function retryTime(nowMs: number, retryAfterSeconds: number): string {
  const at = new Date(Math.ceil((nowMs + retryAfterSeconds * 1000) / 1000) * 1000)
  if (!Number.isFinite(at.getTime())) return 'later'
  return `after ${at.toISOString().replace('.000Z', 'Z')} (in ${formatWait(retryAfterSeconds)})`
}

/** A wait as people say it: "45 s", "2 min 5 s", "1 h 30 min" (minutes rounded up past an hour). */
export function formatWait(seconds: number): string {
  const whole = Math.max(0, Math.ceil(seconds))
  if (whole < 60) return `${whole} s`
  if (whole < 3600) {
    const rest = whole % 60
    return `${Math.floor(whole / 60)} min${rest > 0 ? ` ${rest} s` : ''}`
  }
  const minutes = Math.ceil(whole / 60)
  const rest = minutes % 60
  return `${Math.floor(minutes / 60)} h${rest > 0 ? ` ${rest} min` : ''}`
}

/**
 * The sentences a 429 from `endpoint` adds after the service's words, or '' for an endpoint
 * that has no more to say. `label` names the option where the user sets it.
 */
export function rateLimitAdvice(
  endpoint: Endpoint,
  retryAfterSeconds: number | undefined,
  { nowMs, sharing }: { nowMs: number; sharing?: Sharing },
  label: (name: string) => string
): string {
  if (endpoint !== 'credential-provision') return ''
  const when =
    retryAfterSeconds === undefined
      ? `The service did not say when; it counts requests per hour, so the next provision is possible ${retryTime(nowMs, WINDOW_SECONDS)} at the latest.`
      : `The next provision is possible ${retryTime(nowMs, retryAfterSeconds)}.`
  return ` ${when} ${shareRemedy(label, sharing)}`
}

/**
 * Where the step stands with `share`: it is the step that shares the run's credential
 * (`this-step`), it could share one (`possible`), or this CI system has no run every job sees
 * (`not-here`), where `share` is refused.
 */
export type Sharing = 'this-step' | 'possible' | 'not-here'

/**
 * Said with every 429 from credential-provision: the limit counts jobs, and sharing counts runs.
 * A step that already shares is told where the rest of the count came from instead, and a step
 * where sharing is refused is not sent to it.
 */
export function shareRemedy(
  label: (name: string) => string,
  sharing: Sharing = 'possible'
): string {
  switch (sharing) {
    case 'this-step':
      return `This step already provisions once for the whole run (${label('share')} is create): other runs, or other jobs with the same API key, used up the limit.`
    case 'not-here':
      return `One credential per run (${label('share')}) works on GitHub Actions and GitLab CI only; here, fewer jobs that provision in an hour stay under the limit.`
    case 'possible':
      return (
        `A pipeline with many jobs can provision once per run instead of once per job: ` +
        `set ${label('share')} to create in one setup job, and to use in the jobs that need the tunnel.`
      )
  }
}
