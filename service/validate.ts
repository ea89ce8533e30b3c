/**
 * Request bodies checked into typed values. Each error names the field and quotes the bad value,
 * because the stand-in's main readers are tests and people debugging a client.
 */
import { badRequest } from './errors.js'
import { isScope, type Scope } from './keys.js'

/** The stand-in's bounds. The real service does not publish its bounds for ttl_minutes. */
export const TTL_MIN_MINUTES = 1
export const TTL_MAX_MINUTES = 1440
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
  ttlMinutes: number
}

export function parseProvisionRequest(body: JsonObject): ProvisionRequest {
  const project = requiredString(body, 'project')
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
      ttl < TTL_MIN_MINUTES ||
      ttl > TTL_MAX_MINUTES)
  ) {
    throw badRequest(
      `Field ttl_minutes must be an integer from ${TTL_MIN_MINUTES} to ${TTL_MAX_MINUTES}, got ${quote(ttl)}`
    )
  }
  return {
    project,
    environment: environment ?? null,
    ttlMinutes: ttl ?? DEFAULT_TTL_MINUTES
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
