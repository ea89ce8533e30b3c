import { printable } from '../text/printable.js'

/** " It expires by itself at …", or nothing when the expiry is unknown; the time comes from state. */
export function until(saved: { expiresAt?: string }): string {
  return saved.expiresAt ? ` It expires by itself at ${printable(saved.expiresAt, 40)}.` : ''
}
