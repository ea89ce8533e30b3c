/**
 * A credential's expiry as the service gave it: whether it has passed, and how post tells it.
 * Only advice hangs on it (post's wording, the keeper's last reconnect): the service, not the
 * runner's clock, decides whether a credential still works, and clocks drift.
 */
import { printable } from './text/printable.js'

// In the text helpers, since the tunnel process counts on it too and imports no more of the core.
export { hasExpired } from './text/iso-time.js'

/** " It expires by itself at …", or nothing when the expiry is unknown; the time comes from state. */
export function expiryNote(saved: { expiresAt?: string }): string {
  return saved.expiresAt ? ` It expires by itself at ${printable(saved.expiresAt, 40)}.` : ''
}
