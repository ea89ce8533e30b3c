/** What every kind that calls the service saves besides what names its credential. */
export interface SavedIssued {
  /** Where main sent the key; post only compares it with its own base-url option. */
  baseUrl?: string
  expiresAt?: string
  /** Issued, then refused by main: post revokes it even with `revoke: false`. */
  rejected?: boolean
  /**
   * Belongs to the run (`share`): handed to its other jobs, and revoked by its final job, so post
   * leaves it, unless its own `share` option is off (revoke-guard.ts).
   */
  shared?: boolean
}

/** SavedIssued's fields, read back from state: only non-empty strings, and the flags only if true. */
export function readSavedIssued(saved: Record<string, unknown>): SavedIssued {
  const text = (field: string): string | undefined =>
    typeof saved[field] === 'string' && saved[field] !== '' ? (saved[field] as string) : undefined
  const baseUrl = text('baseUrl')
  const expiresAt = text('expiresAt')
  return {
    ...(baseUrl && { baseUrl }),
    ...(expiresAt && { expiresAt }),
    ...(saved.rejected === true && { rejected: true }),
    ...(saved.shared === true && { shared: true })
  }
}
