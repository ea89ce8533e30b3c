/**
 * How the service's credential answer spells its fields. Some deployments answer with the free
 * credential's field names (`tunnel_client_id`, `tunnel_client_secret`), so both spellings are
 * read, everywhere the same way.
 */

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The token: the tunnel password, secret. */
export function tokenOf(answer: Record<string, unknown>): unknown {
  return answer.token ?? answer.tunnel_client_secret
}

/** The tunnel user: the name the credential is known and revoked by. */
export function tunnelUserOf(answer: Record<string, unknown>): unknown {
  return answer.tunnel_user ?? answer.tunnel_client_id
}

/** The field pairs that say one thing in two spellings: the spec's first, the product's second. */
const SPELLINGS = [
  ['token', 'tunnel_client_secret'],
  ['tunnel_user', 'tunnel_client_id']
] as const

/**
 * The pair of fields an answer sets to two different values, if any: such an answer names two
 * credentials, and nothing tells which one the service means. Null counts as absent, as above.
 */
export function contradictorySpellings(
  answer: Record<string, unknown>
): readonly [string, string] | undefined {
  return SPELLINGS.find(([spec, product]) => {
    const first = answer[spec]
    const second = answer[product]
    return first !== undefined && first !== null && second !== undefined && second !== null
      ? first !== second
      : false
  })
}
