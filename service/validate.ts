/**
 * Request bodies checked into typed values. Each error names the field and quotes the bad value,
 * because the stand-in's main readers are tests and people debugging a client.
 */
import { badRequest } from './errors.js'
import { isScope, type Scope } from './keys.js'

/**
 * The stand-in's bounds. The real service does not publish its bounds for ttl_minutes; 0, which
 * the product's own action sends by default, means no expiry.
 */
export const TTL_MIN_MINUTES = 1
export const TTL_MAX_MINUTES = 1440
export const TTL_NO_EXPIRY = 0
/** The stand-in's choice when `ttl_minutes` is absent; the spec does not name a default. */
export const DEFAULT_TTL_MINUTES = 60

type JsonObject = Record<string, unknown>

const quote = (value: unknown): string => {
  const text = JSON.stringify(value)
  return text === undefined ? String(value) : text
}

/** Parses a body that must be a JSON object (not an array, null or a scalar). */
export function parseJsonObject(raw: string): JsonObject {
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    throw badRequest('Request body must be a JSON object')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw badRequest('Request body must be a JSON object')
  }
  return parsed as JsonObject
}

function requiredString(body: JsonObject, field: string): string {
  const value = body[field]
  if (value === undefined) throw badRequest(`Missing required field: ${field}`)
  if (typeof value !== 'string' || value.trim() === '') {
    throw badRequest(`Field ${field} must be a non-empty string, got ${quote(value)}`)
  }
  return value
}

export interface ProvisionRequest {
  project: string
  environment: string | null
  /** 0: no expiry. */
  ttlMinutes: number
  region: string | null
  metadata: Record<string, string | number | boolean> | null
}

/**
 * `owner/repo` as the product's action sends it (`GITHUB_REPOSITORY`): GitHub's owner rule (39
 * letters, digits or inner dashes) and repository rule (100 letters, digits, `.`, `_` or `-`).
 */
export const REPOSITORY_PROJECT =
  /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?\/[A-Za-z0-9._-]{1,100}$/
/** The stand-in's region rule, the same as the product's action checks before sending one. */
const REGION_FORMAT = /^[a-z0-9][a-z0-9-]{0,31}$/
export const METADATA_MAX_FIELDS = 32
const METADATA_KEY = /^[A-Za-z0-9_.-]{1,64}$/
export const METADATA_MAX_VALUE_LENGTH = 1024

function parseMetadata(value: unknown): Record<string, string | number | boolean> | null {
  if (value === undefined || value === null) return null
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest(`Field metadata must be an object, got ${quote(value)}`)
  }
  const entries = Object.entries(value as JsonObject)
  if (entries.length > METADATA_MAX_FIELDS) {
    throw badRequest(
      `Field metadata holds at most ${METADATA_MAX_FIELDS} fields, got ${entries.length}`
    )
  }
  const kept: Record<string, string | number | boolean> = {}
  for (const [key, field] of entries) {
    if (!METADATA_KEY.test(key)) {
      throw badRequest(
        `Field metadata's keys must be 1-64 letters, digits, ., _ or -, got ${quote(key)}`
      )
    }
    const scalar =
      (typeof field === 'string' && field.length <= METADATA_MAX_VALUE_LENGTH) ||
      (typeof field === 'number' && Number.isFinite(field)) ||
      typeof field === 'boolean'
    if (!scalar) {
      throw badRequest(
        `Field metadata.${key} must be a string of at most ${METADATA_MAX_VALUE_LENGTH} characters, a number or a boolean`
      )
    }
    kept[key] = field as string | number | boolean
  }
  return kept
}

export function parseProvisionRequest(body: JsonObject): ProvisionRequest {
  const project = requiredString(body, 'project')
  if (project.includes('/') && !REPOSITORY_PROJECT.test(project)) {
    throw badRequest(`Field project must be a slug or owner/repo, got ${quote(project)}`)
  }
  const region = body.region
  if (region !== undefined && region !== null) {
    if (typeof region !== 'string' || !REGION_FORMAT.test(region)) {
      throw badRequest(
        `Field region must be 1-32 lowercase letters, digits or dashes, got ${quote(region)}`
      )
    }
  }
  const environment = body.environment
  if (environment !== undefined && typeof environment !== 'string') {
    throw badRequest(`Field environment must be a string, got ${quote(environment)}`)
  }
  const ttl = body.ttl_minutes
  // A JSON integer only: "60" or 60.5 are client bugs worth surfacing, not values to coerce.
  if (
    ttl !== undefined &&
    (typeof ttl !== 'number' ||
      !Number.isInteger(ttl) ||
      (ttl !== TTL_NO_EXPIRY && (ttl < TTL_MIN_MINUTES || ttl > TTL_MAX_MINUTES)))
  ) {
    throw badRequest(
      `Field ttl_minutes must be 0 (no expiry) or an integer from ${TTL_MIN_MINUTES} to ${TTL_MAX_MINUTES}, got ${quote(ttl)}`
    )
  }
  return {
    project,
    environment: environment ?? null,
    ttlMinutes: ttl ?? DEFAULT_TTL_MINUTES,
    region: typeof region === 'string' ? region : null,
    metadata: parseMetadata(body.metadata)
  }
}

export function parseRevokeRequest(body: JsonObject): { tunnelUser: string } {
  return { tunnelUser: requiredString(body, 'tunnel_user') }
}

export interface ApiKeyCreateRequest {
  name: string
  scopes: Scope[]
  expiresAt: number | null
}

export function parseApiKeyCreateRequest(body: JsonObject): ApiKeyCreateRequest {
  const name = requiredString(body, 'name')
  const scopes = body.scopes
  if (!Array.isArray(scopes) || scopes.length === 0) {
    throw badRequest(`Field scopes must be a non-empty array of scopes, got ${quote(scopes)}`)
  }
  const unknown = scopes.filter(scope => !isScope(scope))
  if (unknown.length > 0) throw badRequest(`Unknown scope(s): ${quote(unknown)}`)
  const expires = body.expires_at
  let expiresAt: number | null = null
  if (expires !== undefined && expires !== null) {
    expiresAt = typeof expires === 'string' ? Date.parse(expires) : NaN
    if (Number.isNaN(expiresAt)) {
      throw badRequest(`Field expires_at must be an ISO 8601 timestamp, got ${quote(expires)}`)
    }
  }
  return { name, scopes: scopes as Scope[], expiresAt }
}

/** The stand-in's slug rule (the spec gives none): lowercase letters, digits and dashes. */
const SLUG_FORMAT = /^[a-z0-9][a-z0-9-]{0,62}$/

export interface ProjectRegisterRequest {
  slug: string
  name: string
  createToken: boolean
}

export function parseProjectRegisterRequest(body: JsonObject): ProjectRegisterRequest {
  const slug = requiredString(body, 'slug')
  if (!SLUG_FORMAT.test(slug)) {
    throw badRequest(
      `Field slug must be 1-63 lowercase letters, digits or dashes, starting with a letter or digit, got ${quote(slug)}`
    )
  }
  const name = body.name === undefined ? slug : requiredString(body, 'name')
  const createToken = body.create_token
  if (createToken !== undefined && typeof createToken !== 'boolean') {
    throw badRequest(`Field create_token must be a boolean, got ${quote(createToken)}`)
  }
  return { slug, name, createToken: createToken ?? false }
}

/** The stand-in's bounds for `expires_in_days`; the spec does not publish any. */
export const KEY_EXPIRY_MIN_DAYS = 1
export const KEY_EXPIRY_MAX_DAYS = 365
/** The stand-in's cap on a key's `name`: the action cuts the names it makes to 100 characters. */
export const KEY_NAME_MAX_LENGTH = 100
/** A tunnel user name: what an SSH client can send as its user without quoting. */
const CLIENT_ID_FORMAT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
const SERVER_TYPE_FORMAT = /^[a-z0-9][a-z0-9_-]{0,31}$/
/** The stand-in's `server_type` when none is sent; the spec names `default` and `shared` only. */
export const DEFAULT_SERVER_TYPE = 'default'

export interface KeysUploadRequest {
  /** The line as sent; parsed and checked by the handler. */
  publicKey: string
  name: string
  serverType: string
  expiresInDays: number | null
  clientId: string | null
}

function optionalMatching(
  body: JsonObject,
  field: string,
  format: RegExp,
  rule: string
): string | null {
  const value = body[field]
  if (value === undefined || value === null) return null
  if (typeof value !== 'string' || !format.test(value)) {
    throw badRequest(`Field ${field} must be ${rule}, got ${quote(value)}`)
  }
  return value
}

export function parseKeysUploadRequest(body: JsonObject): KeysUploadRequest {
  const publicKey = requiredString(body, 'public_key_ssh')
  const name = requiredString(body, 'name')
  if (name.length > KEY_NAME_MAX_LENGTH) {
    throw badRequest(
      `Field name must be at most ${KEY_NAME_MAX_LENGTH} characters, got ${name.length}`
    )
  }
  const days = body.expires_in_days
  if (
    days !== undefined &&
    days !== null &&
    (typeof days !== 'number' ||
      !Number.isInteger(days) ||
      days < KEY_EXPIRY_MIN_DAYS ||
      days > KEY_EXPIRY_MAX_DAYS)
  ) {
    throw badRequest(
      `Field expires_in_days must be an integer from ${KEY_EXPIRY_MIN_DAYS} to ${KEY_EXPIRY_MAX_DAYS}, got ${quote(days)}`
    )
  }
  const serverType = optionalMatching(
    body,
    'server_type',
    SERVER_TYPE_FORMAT,
    'lowercase letters, digits, _ or -, at most 32'
  )
  const clientId = optionalMatching(
    body,
    'client_id',
    CLIENT_ID_FORMAT,
    'letters, digits, ., _ or -, at most 64, starting with a letter or digit'
  )
  return {
    publicKey,
    name,
    serverType: serverType ?? DEFAULT_SERVER_TYPE,
    expiresInDays: days ?? null,
    clientId
  }
}

export function parseRevokeSshKeyRequest(body: JsonObject): { keyId: string } {
  return { keyId: requiredString(body, 'key_id') }
}
