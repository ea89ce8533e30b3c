/**
 * The fields of the product's answer that say how its tunnel server names public URLs (pure):
 * `tunnel_fqdn`, `append_user_to_subdomain` and `ownership_type`. Each is optional, and the spec's
 * answer has none of them; one that is present but malformed makes the whole answer refused.
 */
import { isIP } from 'node:net'

/** What the answer says about public URLs; every field absent in the spec's shape. */
export interface AnswerUrlFields {
  /** The domain public URLs live under (`cicd.eu1.example`), not the SSH host. */
  tunnelFqdn?: string
  /** False: the server registers `{name}` alone, without the tunnel user appended. */
  appendUserToSubdomain?: boolean
  /** Shown in the summary only: the URL does not depend on it. */
  ownershipType?: string
}

/** The types the product's documents name; others are accepted (see OWNERSHIP_PATTERN). */
export const KNOWN_OWNERSHIP_TYPES = ['shared', 'dedicated', 'self-hosted'] as const

// Lower-case labels of letters, digits and inner hyphens, at most 253 characters: the domain of
// every public URL, written into it as it is, so no case or trailing dot for the URL to rewrite.
const DOMAIN_PATTERN =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/

// A short word: shown in the summary and the log, so nothing a log reader could obey. Not a fixed
// set: the type decides nothing here, and a service that adds one must not fail every run.
const OWNERSHIP_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/

/**
 * Reads the three fields; throws `invalid(what)` for the first one present but malformed. Null
 * counts as absent, as for the answer's other optional fields.
 */
export function readAnswerUrlFields(
  answer: Record<string, unknown>,
  invalid: (what: string) => Error
): AnswerUrlFields {
  const { tunnel_fqdn: fqdn, append_user_to_subdomain: append, ownership_type: ownership } = answer
  const fields: AnswerUrlFields = {}
  if (fqdn !== undefined && fqdn !== null) {
    if (typeof fqdn !== 'string' || !DOMAIN_PATTERN.test(fqdn) || isIP(fqdn) !== 0) {
      throw invalid('tunnel_fqdn is not a lower-case host name (an IP address cannot hold names)')
    }
    fields.tunnelFqdn = fqdn
  }
  if (append !== undefined && append !== null) {
    if (typeof append !== 'boolean') throw invalid('append_user_to_subdomain is not true or false')
    fields.appendUserToSubdomain = append
  }
  if (ownership !== undefined && ownership !== null) {
    if (typeof ownership !== 'string' || !OWNERSHIP_PATTERN.test(ownership)) {
      throw invalid(
        `ownership_type is not a short lower-case word (such as ${KNOWN_OWNERSHIP_TYPES.join(', ')})`
      )
    }
    fields.ownershipType = ownership
  }
  return fields
}
