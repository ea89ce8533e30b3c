/**
 * The service's endpoints under /functions/v1: what each checks and what it answers.
 * Handlers get a parsed request and the state and return a reply, or throw a ServiceError;
 * they know nothing of sockets, so the HTTP layer can put faults around them.
 */
import type { IncomingHttpHeaders } from 'node:http'
import { callerHasScope, identifyCaller, type Caller } from './auth.js'
import { badRequest, forbidden, notFound, rateLimited, unauthorized } from './errors.js'
import { newApiKey, newClientSecret, newTokenValue, newTunnelUser, newUuid } from './ids.js'
import type { RateDecision } from './rate-limit.js'
import type { ServiceState } from './state.js'
import { isoTime, type TokenRecord } from './tokens.js'
import {
  parseApiKeyCreateRequest,
  parseJsonObject,
  parseProjectRegisterRequest,
  parseProvisionRequest,
  parseRevokeRequest
} from './validate.js'

export interface ServiceRequest {
  headers: IncomingHttpHeaders
  rawBody: string
  clientAddress: string
}

export interface Reply {
  status: number
  body: unknown
}

type Handler = (request: ServiceRequest, state: ServiceState) => Reply

const FREE_TOKEN_LIFETIME_MS = 5 * 60 * 1000
/** The stand-in's values for the free credential's limits; the spec names the fields only. */
export const FREE_LIMITS = { max_uptime_minutes: 5, max_connections_per_hour: 10 }

function requireCaller(request: ServiceRequest, state: ServiceState): Caller {
  const caller = identifyCaller(request.headers, state, state.now())
  if (caller === null) {
    throw unauthorized('Missing or invalid credentials: send X-API-Key or Authorization: Bearer')
  }
  return caller
}

function enforce(decision: RateDecision): void {
  if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds)
}

const newTunnelUserIn = (state: ServiceState): string =>
  newTunnelUser(candidate => state.tokens.has(candidate))

const provisionCredential: Handler = (request, state) => {
  // API key only: the spec reserves credential-provision for keys with cicd:provision.
  if (request.headers['x-api-key'] === undefined) {
    throw unauthorized('Missing X-API-Key header')
  }
  const caller = requireCaller(request, state)
  if (caller.method !== 'api-key') throw unauthorized('Invalid API key')
  if (!callerHasScope(caller, 'cicd:provision')) {
    throw forbidden('API key lacks the cicd:provision scope')
  }
  enforce(state.limits.provision.take(caller.key.key))
  const {
    project: slug,
    environment,
    ttlMinutes
  } = parseProvisionRequest(parseJsonObject(request.rawBody))
  const project = state.projects.find(slug)
  if (project === undefined) throw notFound(`Project not found: ${JSON.stringify(slug)}`)

  const now = state.now()
  const record = issueToken(state, now, {
    secret: newTokenValue(),
    tunnelType: 'cicd',
    configName: project.slug,
    projectSlug: project.slug,
    environment,
    expiresAt: now + ttlMinutes * 60_000
  })
  return {
    status: 200,
    body: {
      token: record.secret,
      tunnel_user: record.tunnelUser,
      client_id: project.default_client_id,
      expires_at: isoTime(record.expiresAt ?? now),
      ttl_minutes: ttlMinutes,
      tunnel_host: state.tunnelHost,
      tunnel_port: state.tunnelPort,
      project_slug: project.slug
    }
  }
}

/** Creates a token record with a fresh id and tunnel user, unused and not revoked, and stores it. */
function issueToken(
  state: ServiceState,
  // The caller's clock reading, so created_at and expires_at come from the same instant.
  now: number,
  fields: Pick<
    TokenRecord,
    'secret' | 'tunnelType' | 'configName' | 'projectSlug' | 'environment' | 'expiresAt'
  >
): TokenRecord {
  const record: TokenRecord = {
    id: newUuid(),
    tunnelUser: newTunnelUserIn(state),
    createdAt: now,
    revokedAt: null,
    lastUsedAt: null,
    usageCount: 0,
    ...fields
  }
  state.tokens.add(record)
  return record
}

const createEphemeralToken: Handler = (request, state) => {
  enforce(state.limits.ephemeral.take(request.clientAddress))
  const now = state.now()
  const record = issueToken(state, now, {
    secret: newClientSecret(),
    tunnelType: 'free',
    configName: 'free',
    projectSlug: null,
    environment: null,
    expiresAt: now + FREE_TOKEN_LIFETIME_MS
  })
  return {
    status: 200,
    body: {
      tunnel_client_id: record.tunnelUser,
      tunnel_client_secret: record.secret,
      expires_at: isoTime(record.expiresAt ?? now),
      tunnel_host: state.tunnelHost,
      tunnel_port: state.tunnelPort,
      limits: { ...FREE_LIMITS }
    }
  }
}

const revokeToken: Handler = (request, state) => {
  requireCaller(request, state)
  const { tunnelUser } = parseRevokeRequest(parseJsonObject(request.rawBody))
  if (!state.tokens.revoke(tunnelUser, state.now())) {
    throw notFound(`Token not found or already revoked: ${JSON.stringify(tunnelUser)}`)
  }
  return { status: 200, body: { success: true, message: `Token ${tunnelUser} revoked` } }
}

const listTokens: Handler = (request, state) => {
  requireCaller(request, state)
  return { status: 200, body: { tokens: state.tokens.list(state.now()) } }
}

const createApiKey: Handler = (request, state) => {
  const caller = requireCaller(request, state)
  if (!callerHasScope(caller, 'apikey:write')) {
    throw forbidden('API key lacks the apikey:write scope')
  }
  // Single owner, so one bucket for everyone.
  enforce(state.limits.apiKeysCreate.take('owner'))
  const { name, scopes, expiresAt } = parseApiKeyCreateRequest(parseJsonObject(request.rawBody))
  const id = newUuid()
  const apiKey = newApiKey()
  state.keys.add({ id, key: apiKey, name, scopes, createdAt: state.now(), expiresAt })
  return {
    status: 201,
    body: {
      id,
      api_key: apiKey,
      expires_at: expiresAt === null ? null : isoTime(expiresAt),
      message: 'Store this key now: it is not shown again'
    }
  }
}

const registerProject: Handler = (request, state) => {
  requireCaller(request, state)
  const { slug, name, createToken } = parseProjectRegisterRequest(parseJsonObject(request.rawBody))
  if (state.projects.find(slug) !== undefined) {
    // The spec lists no conflict code, so a taken slug is a bad request here.
    throw badRequest(`Project slug already registered: ${JSON.stringify(slug)}`)
  }
  const project = state.projects.add(slug, name)
  if (!createToken) return { status: 200, body: { project, token: null } }
  const record = issueToken(state, state.now(), {
    secret: newTokenValue(),
    tunnelType: 'standard',
    configName: slug,
    projectSlug: slug,
    environment: null,
    // A project token behaves as a standard token: valid until revoked.
    expiresAt: null
  })
  return {
    status: 200,
    body: {
      project,
      token: { token: record.secret, tunnel_user: record.tunnelUser, expires_at: null }
    }
  }
}

export interface Endpoint {
  method: 'GET' | 'POST'
  handle: Handler
}

/**
 * Every endpoint the stand-in serves, by the name that follows /functions/v1/. A Map, not a plain
 * object: a lookup must not find what every object inherits (`constructor`, `__proto__`, …).
 */
export const ENDPOINTS: ReadonlyMap<string, Endpoint> = new Map([
  ['create-ephemeral-token', { method: 'POST', handle: createEphemeralToken }],
  ['credential-provision', { method: 'POST', handle: provisionCredential }],
  ['user-tokens-list', { method: 'GET', handle: listTokens }],
  ['revoke-token', { method: 'POST', handle: revokeToken }],
  ['api-keys-create', { method: 'POST', handle: createApiKey }],
  ['project-register', { method: 'POST', handle: registerProject }]
])

export const ENDPOINT_NAMES = [...ENDPOINTS.keys()]
