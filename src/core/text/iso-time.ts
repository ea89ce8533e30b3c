const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/

/**
 * True for an ISO 8601 date and time with its offset, as the service sends expiries, that names a
 * real time: saved, printed and compared with the clock later, so nothing else is taken.
 */
export function isIsoTime(value: unknown): value is string {
  return typeof value === 'string' && ISO_8601.test(value) && Number.isFinite(Date.parse(value))
}

/**
 * True when an expiry such as the service gives has passed at `nowMs`; unknown expiry counts as
 * live. Only advice hangs on it: the service, not the runner's clock, decides (clocks drift).
 */
export function hasExpired(expiresAt: string | undefined, nowMs: number): boolean {
  if (!expiresAt) return false
  const at = Date.parse(expiresAt)
  return Number.isFinite(at) && at <= nowMs
}
