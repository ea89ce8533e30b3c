/**
 * The API keys the stand-in accepts, with their scopes. Keys are kept in plaintext: the real
 * service stores only a bcrypt hash, but nothing here is a real secret.
 */

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
  name: string
  scopes: Scope[]
  createdAt: number
  /** null: the key does not expire. */
  expiresAt: number | null
}

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
}
