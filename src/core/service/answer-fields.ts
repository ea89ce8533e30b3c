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
