/**
 * The API keys the stand-in accepts, with their scopes and owners. Keys are kept in plaintext:
 * the real service stores only a bcrypt hash, but nothing here is a real secret.
 */
import { isoTime } from './tokens.js'

export const ALL_SCOPES = [
  'token:read',
  'token:write',
  'config:read',
  'config:write',
  'apikey:read',
  'apikey:write',
  'cicd:provision',
  'server:admin'
] as const

export type Scope = (typeof ALL_SCOPES)[number]

export const isScope = (value: unknown): value is Scope =>
  typeof value === 'string' && (ALL_SCOPES as readonly string[]).includes(value)

const API_KEY_FORMAT = /^sk_[0-9a-f]{64}$/

/** The spec's form: `sk_` followed by 64 hexadecimal characters. */
export const isApiKeyFormat = (value: string): boolean => API_KEY_FORMAT.test(value)

export interface ApiKeyRecord {
  id: string
  key: string
  /** The account the key acts for. */
  owner: string
  name: string
  scopes: Scope[]
  createdAt: number
  /** null: the key does not expire. */
  expiresAt: number | null
  /** null: never used to authenticate a request. */
  lastUsedAt: number | null
}

/** An entry of `user-api-keys-list`: metadata only, never the key. */
export interface ApiKeyView {
  id: string
  name: string
  scopes: Scope[]
  status: 'active' | 'expired'
  created_at: string
  last_used_at: string | null
  expires_at: string | null
}

// Field by field on purpose: a spread of the record would carry the key itself into the answer.
const toApiKeyView = (record: ApiKeyRecord, now: number): ApiKeyView => ({
  id: record.id,
  name: record.name,
  scopes: [...record.scopes],
  status: record.expiresAt !== null && now >= record.expiresAt ? 'expired' : 'active',
  created_at: isoTime(record.createdAt),
  last_used_at: record.lastUsedAt === null ? null : isoTime(record.lastUsedAt),
  expires_at: record.expiresAt === null ? null : isoTime(record.expiresAt)
})

export class KeyRing {
  private readonly keys = new Map<string, ApiKeyRecord>()

  add(record: ApiKeyRecord): void {
    this.keys.set(record.key, record)
  }

  /** The key's record, or undefined when it is unknown or has expired. */
  find(key: string, now: number): ApiKeyRecord | undefined {
    const record = this.keys.get(key)
    if (record === undefined) return undefined
    if (record.expiresAt !== null && now >= record.expiresAt) return undefined
    return record
  }

  /** The owner's keys, oldest first, expired ones included. */
  listFor(owner: string, now: number): ApiKeyView[] {
    return [...this.keys.values()]
      .filter(record => record.owner === owner)
      .map(record => toApiKeyView(record, now))
  }
}
