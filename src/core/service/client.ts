import { Agent, type RequestOptions } from 'node:http'
import { HttpClient } from '@actions/http-client'
import type { HttpClientResponse } from '@actions/http-client'
import type { RequestHandler } from '@actions/http-client/lib/interfaces'
import { cleanText } from '../text/printable.js'
import { interpretAnswer } from './answer.js'
import { trustCa } from './extra-ca.js'
import { ServiceError, type Endpoint } from './service-error.js'
import { readTokenList, type ListedToken } from './token-list.js'
import { withRetries, type AttemptFailure, type RetryOptions } from './retry.js'
import { ACTION_NAME, ACTION_VERSION } from '../version.js'

export { interpretAnswer }
export { ServiceError, type Endpoint }

/** Largest response body read; a credential is a few hundred bytes, so more is a wrong endpoint or an attack. */
export const MAX_BODY_BYTES = 1024 * 1024

export interface ServiceClientOptions {
  baseUrl: string
  maxAttempts: number
  timeoutSeconds: number
  /** PEM certificates trusted besides Node's own (ca-file). */
  ca?: string
  sleep: RetryOptions['sleep']
  random: RetryOptions['random']
  onRetry?: RetryOptions['onRetry']
  /** The clock, for a Retry-After given as a date; Date.now when not given. */
  now?: () => number
}

export interface ProvisionRequest {
  apiKey: string
  project: string
  environment: string
  ttlMinutes?: number
}

export interface KeyUploadRequest {
  apiKey: string
  publicKeyLine: string
  name: string
  expiresInDays: number
  /** The tunnel user the key logs in as; not sent when empty. */
  clientId?: string
  /**
   * Told before each retry: an attempt whose answer was lost may have stored the key, so the
   * caller must look for copies of it once the upload settles.
   */
  onRetry?: () => void
}

/** The credential service's endpoints that this action calls. Bodies come back unvalidated. */
export class CredentialService {
  constructor(private readonly options: ServiceClientOptions) {}

  provisionCredential(request: ProvisionRequest): Promise<unknown> {
    const body: Record<string, unknown> = { project: request.project }
    if (request.environment) body.environment = request.environment
    if (request.ttlMinutes !== undefined) body.ttl_minutes = request.ttlMinutes
    return this.call('credential-provision', body, { 'X-API-Key': request.apiKey })
  }

  createFreeCredential(): Promise<unknown> {
    return this.call('create-ephemeral-token', undefined, {})
  }

  /** Resolves 'already-gone' on 404: the token was revoked before, or never existed. */
  revokeCredential(apiKey: string, tunnelUser: string): Promise<'revoked' | 'already-gone'> {
    return this.revoke('revoke-token', { tunnel_user: tunnelUser }, apiKey)
  }

  /** Uploads an SSH public key line; the answer comes back unvalidated, as for tokens. */
  uploadKey(request: KeyUploadRequest): Promise<unknown> {
    const body: Record<string, unknown> = {
      public_key_ssh: request.publicKeyLine,
      name: request.name,
      expires_in_days: request.expiresInDays
    }
    if (request.clientId) body.client_id = request.clientId
    return this.call('keys-upload', body, { 'X-API-Key': request.apiKey }, request.onRetry)
  }

  /** The caller's SSH keys, `{ keys: [...] }`, unvalidated. */
  listKeys(apiKey: string): Promise<unknown> {
    return this.call('user-keys-list', undefined, { 'X-API-Key': apiKey }, undefined, 'GET')
  }

  /** The caller's tunnel tokens (whose each is, and its status), checked like an answer. */
  async listTokens(apiKey: string): Promise<ListedToken[]> {
    const headers = { 'X-API-Key': apiKey }
    return readTokenList(await this.call('user-tokens-list', undefined, headers, undefined, 'GET'))
  }

  /**
   * Resolves 'already-gone' on 404: the spec's "key not found or already deleted". A 403 (the key
   * belongs to another account) and a 401 (the API key was rejected) are thrown like any failure.
   */
  revokeKey(apiKey: string, keyId: string): Promise<'revoked' | 'already-gone'> {
    return this.revoke('revoke-ssh-key', { key_id: keyId }, apiKey)
  }

  /** A revoke whose 404 says that what it names is gone already: what was asked for. */
  private async revoke(
    endpoint: Endpoint,
    body: Record<string, string>,
    apiKey: string
  ): Promise<'revoked' | 'already-gone'> {
    try {
      await this.call(endpoint, body, { 'X-API-Key': apiKey })
      return 'revoked'
    } catch (error) {
      if (error instanceof ServiceError && error.status === 404) return 'already-gone'
      throw error
    }
  }

  private call(
    endpoint: Endpoint,
    body: unknown,
    headers: Record<string, string>,
    onRetry?: () => void,
    method: 'GET' | 'POST' = 'POST'
  ): Promise<unknown> {
    const url = `${this.options.baseUrl}/${endpoint}`
    const payload = body === undefined ? '' : JSON.stringify(body)
    const allHeaders = {
      ...headers,
      Accept: 'application/json',
      ...(body !== undefined && { 'Content-Type': 'application/json' })
    }
    return withRetries(
      () => this.attempt(endpoint, method, url, payload, allHeaders),
      classifyFailure,
      {
        maxAttempts: this.options.maxAttempts,
        sleep: this.options.sleep,
        random: this.options.random,
        onRetry: info => {
          onRetry?.()
          this.options.onRetry?.(info)
        }
      }
    )
  }

  /**
   * One request with a deadline over the whole exchange, body included: a socket timeout alone
   * would let a server that trickles bytes hold the job forever. A client per attempt, so that
   * disposing it closes a hung socket and the step's process can exit.
   */
  private async attempt(
    endpoint: Endpoint,
    method: 'GET' | 'POST',
    url: string,
    payload: string,
    headers: Record<string, string>
  ): Promise<unknown> {
    const timeoutMs = this.options.timeoutSeconds * 1000
    const handlers = [unbracketIpv6Host, ...(this.options.ca ? [trustCa(this.options.ca)] : [])]
    const http = new HttpClient(`${ACTION_NAME}/${ACTION_VERSION}`, handlers, {
      socketTimeout: timeoutMs,
      // A redirect would carry X-API-Key to wherever it points; base-url must be the real address.
      allowRedirects: false,
      allowRetries: false
    })
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ServiceError(
              'timeout',
              endpoint,
              `no answer within ${this.options.timeoutSeconds} s`
            )
          ),
        timeoutMs
      )
    })
    try {
      const now = this.options.now ?? Date.now
      return await Promise.race([
        exchange(http, endpoint, method, url, payload, headers, now),
        deadline
      ])
    } finally {
      clearTimeout(timer)
      http.dispose()
    }
  }
}

async function exchange(
  http: HttpClient,
  endpoint: Endpoint,
  method: 'GET' | 'POST',
  url: string,
  payload: string,
  headers: Record<string, string>,
  now: () => number
): Promise<unknown> {
  let response: HttpClientResponse
  try {
    response = await http.request(method, url, method === 'GET' ? null : payload, headers)
  } catch (error) {
    throw new ServiceError('network', endpoint, networkDetail(error))
  }
  let text: string
  try {
    text = await readLimitedBody(response, endpoint)
  } catch (error) {
    if (error instanceof ServiceError) throw error
    throw new ServiceError(
      'network',
      endpoint,
      `the connection broke while reading the answer: ${networkDetail(error)}`
    )
  }
  return interpretAnswer(
    endpoint,
    response.message.statusCode ?? 0,
    text,
    response.message.headers['retry-after'],
    now()
  )
}

/**
 * @actions/http-client passes the URL's hostname to Node as the host, and for an IPv6 literal
 * that keeps the brackets ("[::1]"), which then reach the resolver and fail. Node wants the bare
 * address (it brackets it again in the Host header). Through a proxy the brackets must stay: the
 * tunnelling agent writes host:port into its CONNECT line, where an IPv6 address needs them.
 */
export const unbracketIpv6Host: RequestHandler = {
  prepareRequest(options: RequestOptions) {
    const host = options.host
    if (host?.startsWith('[') && host.endsWith(']') && options.agent instanceof Agent) {
      options.host = host.slice(1, -1)
    }
  },
  canHandleAuthentication: () => false,
  handleAuthentication: () => Promise.reject(new Error('not used'))
}

function classifyFailure(error: unknown): AttemptFailure {
  if (!(error instanceof ServiceError)) return { retryable: false }
  if (error.kind === 'network' || error.kind === 'timeout') return { retryable: true }
  if (error.kind === 'http' && error.status !== undefined) {
    const retryable = error.status === 429 || error.status === 408 || error.status >= 500
    return { retryable, retryAfterSeconds: retryable ? error.retryAfterSeconds : undefined }
  }
  return { retryable: false }
}

async function readLimitedBody(response: HttpClientResponse, endpoint: Endpoint): Promise<string> {
  const declared = Number(response.message.headers['content-length'])
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
    response.message.destroy()
    throw tooLarge(endpoint)
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of response.message) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY_BYTES) {
      response.message.destroy()
      throw tooLarge(endpoint)
    }
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function tooLarge(endpoint: Endpoint): ServiceError {
  return new ServiceError(
    'bad-response',
    endpoint,
    `a response body larger than ${MAX_BODY_BYTES / 1024} KiB`
  )
}

export function networkDetail(error: unknown): string {
  // Read by shape, not instanceof: an error made in another realm (a VM context, as under Jest)
  // is no instance of this realm's Error, and its code is what tells the user what went wrong.
  const { code, message } = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown
    message?: unknown
  }
  if (typeof message !== 'string') return 'unknown network error'
  const shown = cleanText(message, 200)
  return typeof code === 'string' && !shown.includes(code) ? `${code} (${shown})` : shown
}
