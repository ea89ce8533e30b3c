/**
 * The service's endpoints under /functions/v1: what each checks and what it answers.
 * Handlers get a parsed request and the state and return a reply, or throw a ServiceError;
 * they know nothing of sockets, so the HTTP layer can put faults around them.
 */
import type { IncomingHttpHeaders } from 'node:http'
import { freeAnswerExtras, provisionAnswer } from './answer-shape.js'
import { callerHasScope, identifyCaller, type Caller } from './auth.js'
import { badRequest, forbidden, notFound, rateLimited, unauthorized } from './errors.js'
import { newApiKey, newClientSecret, newTokenValue, newTunnelUser, newUuid } from './ids.js'
import type { RateDecision } from './rate-limit.js'
import { sshKeyStatus, type SshKeyRecord } from './ssh-keys.js'
import { parseSshPublicKey, PublicKeyError, sshFingerprint } from './ssh-public-key.js'
import type { ServiceState } from './state.js'
import { isoTime, type TokenRecord } from './tokens.js'
import {
  parseApiKeyCreateRequest,
  parseJsonObject,
  parseKeysUploadRequest,
  parseProjectRegisterRequest,
  parseProvisionRequest,
  parseRevokeRequest,
  parseRevokeSshKeyRequest,
  REPOSITORY_PROJECT,
  TTL_NO_EXPIRY
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
const DAY_MS = 24 * 60 * 60 * 1000
/** The stand-in's values for the free credential's limits; the spec names the fields only. */
export const FREE_LIMITS = { max_uptime_minutes: 5, max_connections_per_hour: 10 }

function requireCaller(request: ServiceRequest, state: ServiceState): Caller {
  const caller = identifyCaller(request.headers, state, state.now())
  if (caller === null) {
    throw unauthorized('Missing or invalid credentials: send X-API-Key or Authorization: Bearer')
  }
  // Counted on every authenticated request, as user-api-keys-list reports it.
  if (caller.method === 'api-key') caller.key.lastUsedAt = state.now()
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
  const project = findOrAdoptProject(state, slug, caller.owner)
  // Another account's project reads as unknown: its existence is not the caller's business.
  if (project === undefined) throw notFound(`Project not found: ${JSON.stringify(slug)}`)

  const now = state.now()
  const record = issueToken(state, now, {
    owner: caller.owner,
    secret: newTokenValue(),
    tunnelType: 'cicd',
    configName: project.slug,
    projectSlug: project.slug,
    environment,
    expiresAt: ttlMinutes === TTL_NO_EXPIRY ? null : now + ttlMinutes * 60_000
  })
  const issued = {
    tunnelUser: record.tunnelUser,
    secret: record.secret,
    clientId: project.default_client_id,
    projectSlug: project.slug,
    ttlMinutes,
    expiresAt: record.expiresAt === null ? null : isoTime(record.expiresAt),
    tunnelHost: state.tunnelHost,
    tunnelPort: state.tunnelPort
  }
  return { status: 200, body: provisionAnswer(state.answerShape, issued, state.naming) }
}

/**
 * The caller's project by that slug. In the product's shape an `owner/repo` nobody holds yet is
 * registered to the caller on first use: the product's action provisions for whatever repository
 * it runs in, with no registration step before.
 */
function findOrAdoptProject(state: ServiceState, slug: string, owner: string) {
  const project = state.projects.findOwned(slug, owner)
  if (project !== undefined) return project
  const adoptable =
    state.answerShape === 'product' &&
    REPOSITORY_PROJECT.test(slug) &&
    !state.projects.isTaken(slug)
  return adoptable ? state.projects.add(slug, owner) : undefined
}

/** Creates a token record with a fresh id and tunnel user, unused and not revoked, and stores it. */
function issueToken(
  state: ServiceState,
  // The caller's clock reading, so created_at and expires_at come from the same instant.
  now: number,
  fields: Pick<
    TokenRecord,
    'owner' | 'secret' | 'tunnelType' | 'configName' | 'projectSlug' | 'environment' | 'expiresAt'
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
    owner: null,
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
      ...freeAnswerExtras(state.answerShape, state.naming),
      limits: { ...FREE_LIMITS }
    }
  }
}

const revokeToken: Handler = (request, state) => {
  const caller = requireCaller(request, state)
  const { tunnelUser } = parseRevokeRequest(parseJsonObject(request.rawBody))
  const record = state.tokens.find(tunnelUser)
  // Another account's token is 403 whatever its status, so its status does not leak.
  if (record !== undefined && record.owner !== null && record.owner !== caller.owner) {
    throw forbidden(`Token ${JSON.stringify(tunnelUser)} belongs to another account`)
  }
  if (!state.tokens.revoke(tunnelUser, state.now())) {
    throw notFound(`Token not found or already revoked: ${JSON.stringify(tunnelUser)}`)
  }
  return { status: 200, body: { success: true, message: `Token ${tunnelUser} revoked` } }
}

const listTokens: Handler = (request, state) => {
  const caller = requireCaller(request, state)
  return { status: 200, body: { tokens: state.tokens.listFor(caller.owner, state.now()) } }
}

const createApiKey: Handler = (request, state) => {
  const caller = requireCaller(request, state)
  if (!callerHasScope(caller, 'apikey:write')) {
    throw forbidden('API key lacks the apikey:write scope')
  }
  enforce(state.limits.apiKeysCreate.take(caller.owner))
  const { name, scopes, expiresAt } = parseApiKeyCreateRequest(parseJsonObject(request.rawBody))
  const id = newUuid()
  const apiKey = newApiKey()
  state.keys.add({
    id,
    key: apiKey,
    owner: caller.owner,
    name,
    scopes,
    createdAt: state.now(),
    expiresAt,
    lastUsedAt: null
  })
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
  const caller = requireCaller(request, state)
  const { slug, name, createToken } = parseProjectRegisterRequest(parseJsonObject(request.rawBody))
  if (state.projects.isTaken(slug)) {
    // The spec lists no conflict code, so a taken slug is a bad request here.
    throw badRequest(`Project slug already registered: ${JSON.stringify(slug)}`)
  }
  const project = state.projects.add(slug, caller.owner, name)
  if (!createToken) return { status: 200, body: { project, token: null } }
  const record = issueToken(state, state.now(), {
    owner: caller.owner,
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

const listProjects: Handler = (request, state) => {
  const caller = requireCaller(request, state)
  const now = state.now()
  const projects = state.projects.listFor(caller.owner).map(project => ({
    ...project,
    tokens: state.tokens.listForProject(caller.owner, project.slug, now),
    // A key is bound to a project by logging in as its client id.
    ssh_keys: state.sshKeys
      .listFor(caller.owner, now)
      .filter(key => key.client_id === project.default_client_id)
  }))
  return { status: 200, body: { projects } }
}

const listApiKeys: Handler = (request, state) => {
  const caller = requireCaller(request, state)
  if (!callerHasScope(caller, 'apikey:read')) {
    throw forbidden('API key lacks the apikey:read scope')
  }
  return { status: 200, body: { api_keys: state.keys.listFor(caller.owner, state.now()) } }
}

const uploadSshKey: Handler = (request, state) => {
  const caller = requireCaller(request, state)
  enforce(state.limits.keysUpload.take(caller.owner))
  const upload = parseKeysUploadRequest(parseJsonObject(request.rawBody))
  let key
  try {
    key = parseSshPublicKey(upload.publicKey)
  } catch (error) {
    if (!(error instanceof PublicKeyError)) throw error
    throw badRequest(`Field public_key_ssh is not an accepted SSH public key: ${error.message}`)
  }
  const now = state.now()
  const record: SshKeyRecord = {
    id: newUuid(),
    owner: caller.owner,
    key,
    fingerprint: sshFingerprint(key.blob),
    name: upload.name,
    serverType: upload.serverType,
    clientId: upload.clientId,
    createdAt: now,
    expiresAt: upload.expiresInDays === null ? null : now + upload.expiresInDays * DAY_MS,
    revokedAt: null
  }
  state.sshKeys.add(record)
  return {
    status: 200,
    body: {
      key_id: record.id,
      public_key_fingerprint: record.fingerprint,
      server_type: record.serverType,
      name: record.name,
      expires_at: record.expiresAt === null ? null : isoTime(record.expiresAt)
    }
  }
}

const listSshKeys: Handler = (request, state) => {
  const caller = requireCaller(request, state)
  return { status: 200, body: { keys: state.sshKeys.listFor(caller.owner, state.now()) } }
}

const revokeSshKey: Handler = (request, state) => {
  const caller = requireCaller(request, state)
  const { keyId } = parseRevokeSshKeyRequest(parseJsonObject(request.rawBody))
  const record = state.sshKeys.find(keyId)
  if (record === undefined) throw notFound(`SSH key not found: ${JSON.stringify(keyId)}`)
  // Before the status check, so another account's key reveals nothing about its state.
  if (record.owner !== caller.owner) {
    throw forbidden(`SSH key ${JSON.stringify(keyId)} belongs to another account`)
  }
  if (sshKeyStatus(record, state.now()) === 'revoked') {
    throw notFound(`SSH key already revoked: ${JSON.stringify(keyId)}`)
  }
  // An expired key can still be revoked, as for tokens: a careful client revokes at the end.
  record.revokedAt = state.now()
  return { status: 200, body: { success: true, message: `SSH key ${keyId} revoked` } }
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
  ['project-register', { method: 'POST', handle: registerProject }],
  ['project-list', { method: 'GET', handle: listProjects }],
  ['user-api-keys-list', { method: 'GET', handle: listApiKeys }],
  ['keys-upload', { method: 'POST', handle: uploadSshKey }],
  ['user-keys-list', { method: 'GET', handle: listSshKeys }],
  ['revoke-ssh-key', { method: 'POST', handle: revokeSshKey }]
])

export const ENDPOINT_NAMES = [...ENDPOINTS.keys()]
