/**
 * What a sealed credential holds: the service's answer fields as the setup job accepted them
 * (snake_case, so the jobs that open it check it with parseCredential as they would an answer),
 * and the service the credential came from.
 */
import type { Credential } from '../service/credential.js'
import { isObject } from '../service/answer-fields.js'

/** The credential in the answer's own shape, plus `base_url`. */
export function sharedPayload(credential: Credential, baseUrl: string): Record<string, unknown> {
  return {
    token: credential.token,
    tunnel_user: credential.tunnelUser,
    client_id: credential.clientId,
    tunnel_host: credential.tunnelHost,
    tunnel_port: credential.tunnelPort,
    ...(credential.expiresAt !== undefined && { expires_at: credential.expiresAt }),
    ...(credential.ttlMinutes !== undefined && { ttl_minutes: credential.ttlMinutes }),
    ...(credential.projectSlug !== undefined && { project_slug: credential.projectSlug }),
    ...(credential.ownershipType !== undefined && { ownership_type: credential.ownershipType }),
    ...(credential.tunnelFqdn !== undefined && { tunnel_fqdn: credential.tunnelFqdn }),
    ...(credential.appendUserToSubdomain !== undefined && {
      append_user_to_subdomain: credential.appendUserToSubdomain
    }),
    base_url: baseUrl
  }
}

/** The service a payload names, or undefined when it names none as a string. */
export function payloadBaseUrl(payload: unknown): string | undefined {
  return isObject(payload) && typeof payload.base_url === 'string' ? payload.base_url : undefined
}
