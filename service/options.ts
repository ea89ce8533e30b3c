/**
 * What the local credential service is started with and what it gives back, and the state its
 * options build: keys, projects, stores and limits. server.ts serves it.
 */
import type { AdminControls } from './admin.js'
import { isAnswerShape, type AnswerShape } from './answer-shape.js'
import type { Fault } from './faults.js'
import { newUuid } from './ids.js'
import { ALL_SCOPES, isApiKeyFormat, KeyRing, type Scope } from './keys.js'
import { ProjectRegistry } from './projects.js'
import { SlidingWindowLimiter } from './rate-limit.js'
import {
  DEFAULT_JWT,
  DEFAULT_KEY_WITHOUT_PROVISION,
  DEFAULT_OWNER,
  DEFAULT_PROJECT,
  DEFAULT_PROVISION_KEY,
  DEFAULT_SECOND_OWNER_KEY,
  DEFAULT_SECOND_OWNER_PROJECT,
  DEFAULT_TUNNEL_HOST,
  DEFAULT_TUNNEL_PORT,
  SECOND_OWNER,
  type Seed
} from './seed.js'
import { SshKeyStore, type SshKeyView } from './ssh-keys.js'
import type { ServiceState } from './state.js'
import { TokenStore } from './tokens.js'
import {
  isHostName,
  namingFrom,
  OWNERSHIP_TYPES,
  type OwnershipType,
  type PublicNaming
} from './tunnel/naming.js'
import type { RunningTunnel, TunnelOptions } from './tunnel/tunnel.js'

const HOUR_MS = 60 * 60 * 1000

export interface ServiceOptions {
  /** 0 (the default) picks a free port. */
  port?: number
  /** Default 127.0.0.1: the stand-in has fixed, public credentials and must stay local. */
  host?: string
  /** Extra API keys, each with every scope. */
  apiKeys?: string[]
  /** Extra project slugs. */
  projects?: string[]
  /** Extra bearer tokens accepted as sessions. */
  jwts?: string[]
  /** tunnel_host in the credentials handed out; default 127.0.0.1. */
  tunnelHost?: string
  /**
   * tunnel_port in the credentials handed out; default 2223. With `tunnel`, the port the
   * tunnel stand-in listens on (default: a free one), and the credentials carry that port.
   */
  tunnelPort?: number
  /**
   * The shape of credential-provision's answer: `spec` (default: `token`, `tunnel_user`, …) or
   * `product` (`tunnel_client_id`, `tunnel_client_secret`, `tunnel_fqdn`, `ownership_type`, …).
   */
  answerShape?: AnswerShape
  /** The domain of public URLs, `tunnel_fqdn`; default `localhost`. Not the SSH host. */
  tunnelFqdn?: string
  /** `ownership_type`; default `shared`. Only a shared server appends the user by default. */
  ownership?: OwnershipType
  /** `append_user_to_subdomain`: `{name}-{user}` when true, `{name}` when false; default by ownership. */
  appendUserToSubdomain?: boolean
  /** Also start the tunnel stand-in (SSH and its HTTP front, see tunnel/tunnel.ts). Default off. */
  tunnel?:
    | boolean
    | Omit<TunnelOptions, 'port' | 'naming' | 'oneSessionPerCredential' | 'maxForwardsPerUser'>
  /**
   * The tunnel stand-in refuses a second concurrent session of one credential (its SSH login),
   * as a server that allows one session per credential does. Default false.
   */
  oneSessionPerCredential?: boolean
  /** Most forwards one tunnel user holds at once on the tunnel stand-in; default 5. */
  maxForwardsPerUser?: number
  /** Faults queued before the first request. */
  faults?: Fault[]
  /** The clock in milliseconds, injectable so tests can move time (expiry, rate-limit windows). */
  now?: () => number
  /**
   * PEM key and certificate: serve https instead of http (the real service is https only; the
   * benchmark uses this so the action and its floor both pay for TLS). Default: plain http.
   */
  tls?: { key: string; cert: string }
}

/** The admin controls (faults, expiry, snapshots), plus where the service is and how to stop it. */
export interface RunningService extends AdminControls {
  /** e.g. `http://127.0.0.1:40123/functions/v1` (https with the `tls` option) */
  baseUrl: string
  /** e.g. `http://127.0.0.1:40123` */
  origin: string
  /** e.g. `http://127.0.0.1:40123/__admin` */
  adminUrl: string
  port: number
  tunnelHost: string
  tunnelPort: number
  /** Which shape credential-provision answers in. */
  answerShape: AnswerShape
  /** How public hosts are named (`tunnel_fqdn`, `ownership_type`, `append_user_to_subdomain`). */
  naming: PublicNaming
  /** The tunnel stand-in (known_hosts path, front URL, forwards), or null when not started. */
  tunnel: RunningTunnel | null
  /** The default credentials and project, always present. */
  seed: Seed
  /** A snapshot of every uploaded SSH key, every account's, as `user-keys-list` shows them. */
  sshKeys(): SshKeyView[]
  /** Makes the SSH key expire now; throws if the key id is unknown. */
  expireSshKey(keyId: string): void
  /** Stops listening and ends every open connection, hung ones included. Safe to call twice. */
  close(): Promise<void>
}

/** Options given from code are checked as the command line checks its flags. */
function checkNamingOptions(options: ServiceOptions): void {
  if (options.answerShape !== undefined && !isAnswerShape(options.answerShape)) {
    throw new Error(`answerShape must be spec or product: ${String(options.answerShape)}`)
  }
  if (options.tunnelFqdn !== undefined && !isHostName(options.tunnelFqdn)) {
    throw new Error(`tunnelFqdn must be a host name: ${options.tunnelFqdn}`)
  }
  if (options.ownership !== undefined && !OWNERSHIP_TYPES.includes(options.ownership)) {
    throw new Error(`ownership must be one of ${OWNERSHIP_TYPES.join(', ')}: ${options.ownership}`)
  }
  const limit = options.maxForwardsPerUser
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1)) {
    throw new Error(`maxForwardsPerUser must be a whole number of at least 1: ${limit}`)
  }
}

export function buildState(options: ServiceOptions, now: () => number): ServiceState {
  checkNamingOptions(options)
  const keys = new KeyRing()
  const addKey = (key: string, owner: string, name: string, scopes: Scope[]): void =>
    keys.add({
      id: newUuid(),
      key,
      owner,
      name,
      scopes,
      createdAt: now(),
      expiresAt: null,
      lastUsedAt: null
    })
  addKey(DEFAULT_PROVISION_KEY, DEFAULT_OWNER, 'default: all scopes', [...ALL_SCOPES])
  addKey(DEFAULT_KEY_WITHOUT_PROVISION, DEFAULT_OWNER, 'default: no cicd:provision', [
    'token:read',
    'token:write',
    'config:read'
  ])
  for (const key of options.apiKeys ?? []) {
    if (!isApiKeyFormat(key)) {
      throw new Error(`API key must be sk_ followed by 64 hexadecimal characters: ${key}`)
    }
    addKey(key, DEFAULT_OWNER, 'seeded: all scopes', [...ALL_SCOPES])
  }
  addKey(DEFAULT_SECOND_OWNER_KEY, SECOND_OWNER, 'second owner: all scopes', [...ALL_SCOPES])
  const projects = new ProjectRegistry()
  projects.add(DEFAULT_SECOND_OWNER_PROJECT, SECOND_OWNER)
  for (const slug of [DEFAULT_PROJECT, ...(options.projects ?? [])]) {
    if (!projects.isTaken(slug)) projects.add(slug, DEFAULT_OWNER)
  }
  return {
    now,
    tunnelHost: options.tunnelHost ?? DEFAULT_TUNNEL_HOST,
    tunnelPort: options.tunnelPort ?? DEFAULT_TUNNEL_PORT,
    answerShape: options.answerShape ?? 'spec',
    naming: namingFrom({
      fqdn: options.tunnelFqdn,
      ownership: options.ownership,
      appendUser: options.appendUserToSubdomain
    }),
    keys,
    jwts: new Set([DEFAULT_JWT, ...(options.jwts ?? [])]),
    projects,
    tokens: new TokenStore(),
    sshKeys: new SshKeyStore(),
    limits: {
      provision: new SlidingWindowLimiter(60, HOUR_MS, now),
      ephemeral: new SlidingWindowLimiter(10, HOUR_MS, now),
      apiKeysCreate: new SlidingWindowLimiter(20, HOUR_MS, now),
      keysUpload: new SlidingWindowLimiter(20, HOUR_MS, now)
    }
  }
}
