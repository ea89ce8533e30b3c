/**
 * The tunnel tokens handed out so far, and how they read in `user-tokens-list`.
 * Status is computed when read, from the clock, so a token turns `expired` on time without
 * any timer running in the server.
 */

export type TunnelType = 'cicd' | 'free' | 'standard'
export type TokenStatus = 'active' | 'revoked' | 'expired'

export interface TokenRecord {
  id: string
  tunnelUser: string
  /** The account that created it; null for free credentials, which belong to no account. */
  owner: string | null
  /** The token (`tok_…`) or, for a free credential, the client secret. Kept for the tunnel stand-in. */
  secret: string
  tunnelType: TunnelType
  configName: string
  projectSlug: string | null
  environment: string | null
  createdAt: number
  /** null: the token does not expire (project tokens). */
  expiresAt: number | null
  revokedAt: number | null
  lastUsedAt: number | null
  usageCount: number
}

/** An entry of `user-tokens-list`: the spec's fields plus `expires_at` and `project_slug`. */
export interface TunnelTokenView {
  id: string
  tunnel_user: string
  status: TokenStatus
  tunnel_type: TunnelType
  created_at: string
  last_used_at: string | null
  usage_count: number
  config_name: string
  expires_at: string | null
  project_slug: string | null
}

export const isoTime = (ms: number): string => new Date(ms).toISOString()

export function tokenStatus(record: TokenRecord, now: number): TokenStatus {
  if (record.revokedAt !== null) return 'revoked'
  if (record.expiresAt !== null && now >= record.expiresAt) return 'expired'
  return 'active'
}

export function toView(record: TokenRecord, now: number): TunnelTokenView {
  return {
    id: record.id,
    tunnel_user: record.tunnelUser,
    status: tokenStatus(record, now),
    tunnel_type: record.tunnelType,
    created_at: isoTime(record.createdAt),
    last_used_at: record.lastUsedAt === null ? null : isoTime(record.lastUsedAt),
    usage_count: record.usageCount,
    config_name: record.configName,
    expires_at: record.expiresAt === null ? null : isoTime(record.expiresAt),
    project_slug: record.projectSlug
  }
}

export class TokenStore {
  private readonly records = new Map<string, TokenRecord>()

  add(record: TokenRecord): void {
    this.records.set(record.tunnelUser, record)
  }

  has(tunnelUser: string): boolean {
    return this.records.has(tunnelUser)
  }

  find(tunnelUser: string): TokenRecord | undefined {
    return this.records.get(tunnelUser)
  }

  /**
   * Marks the token revoked. False when it is unknown or already revoked (the endpoint's 404).
   * An expired token can still be revoked: revoking is what a careful client does at the end.
   */
  revoke(tunnelUser: string, now: number): boolean {
    const record = this.records.get(tunnelUser)
    if (record === undefined || record.revokedAt !== null) return false
    record.revokedAt = now
    return true
  }

  /** Moves the expiry to `now`, so tests see an expired token without waiting. False if unknown. */
  expire(tunnelUser: string, now: number): boolean {
    const record = this.records.get(tunnelUser)
    if (record === undefined) return false
    record.expiresAt = now
    return true
  }

  /** Oldest first, in the order they were handed out. */
  list(now: number): TunnelTokenView[] {
    return [...this.records.values()].map(record => toView(record, now))
  }

  /** What `owner` sees: its own tokens and the free ones, which belong to no account. */
  listFor(owner: string, now: number): TunnelTokenView[] {
    return [...this.records.values()]
      .filter(record => record.owner === null || record.owner === owner)
      .map(record => toView(record, now))
  }

  /** The tokens bound to a project that `owner` holds. */
  listForProject(owner: string, projectSlug: string, now: number): TunnelTokenView[] {
    return [...this.records.values()]
      .filter(record => record.owner === owner && record.projectSlug === projectSlug)
      .map(record => toView(record, now))
  }
}
