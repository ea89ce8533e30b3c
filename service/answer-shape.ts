/**
 * The two shapes a credential-provision answer can take. The spec's shape is the default; the
 * product's shape is what the real service's own GitHub action reads (asd-engineering/asd-devinci,
 * scripts/provision.sh): the tunnel login as `tunnel_client_id` and `tunnel_client_secret`, and
 * how public URLs are named (`tunnel_fqdn`, `ownership_type`, `append_user_to_subdomain`).
 * Either way a credential without expiry (`ttl_minutes: 0`) is answered without `expires_at`.
 */
import type { PublicNaming } from './tunnel/naming.js'

export const ANSWER_SHAPES = ['spec', 'product'] as const
export type AnswerShape = (typeof ANSWER_SHAPES)[number]

export const isAnswerShape = (value: string): value is AnswerShape =>
  (ANSWER_SHAPES as readonly string[]).includes(value)

/** What the handler issued, in the stand-in's own words. */
export interface IssuedCredential {
  tunnelUser: string
  secret: string
  /** The project's default client id (the spec's `client_id`, not the login). */
  clientId: string
  projectSlug: string
  ttlMinutes: number
  /** ISO time; null when the credential does not expire. */
  expiresAt: string | null
  tunnelHost: string
  tunnelPort: number
}

const expiry = (expiresAt: string | null): { expires_at?: string } =>
  expiresAt === null ? {} : { expires_at: expiresAt }

export function provisionAnswer(
  shape: AnswerShape,
  issued: IssuedCredential,
  naming: PublicNaming
): Record<string, unknown> {
  if (shape === 'product') {
    return {
      tunnel_client_id: issued.tunnelUser,
      tunnel_client_secret: issued.secret,
      tunnel_fqdn: naming.fqdn,
      tunnel_host: issued.tunnelHost,
      tunnel_port: issued.tunnelPort,
      ownership_type: naming.ownership,
      append_user_to_subdomain: naming.appendUser,
      ...expiry(issued.expiresAt)
    }
  }
  return {
    token: issued.secret,
    tunnel_user: issued.tunnelUser,
    client_id: issued.clientId,
    ...expiry(issued.expiresAt),
    ttl_minutes: issued.ttlMinutes,
    tunnel_host: issued.tunnelHost,
    tunnel_port: issued.tunnelPort,
    project_slug: issued.projectSlug
  }
}

/** The naming fields the product's shape adds to a free credential's answer too. */
export const freeAnswerExtras = (
  shape: AnswerShape,
  naming: PublicNaming
): Record<string, unknown> =>
  shape === 'product'
    ? {
        tunnel_fqdn: naming.fqdn,
        ownership_type: naming.ownership,
        append_user_to_subdomain: naming.appendUser
      }
    : {}
