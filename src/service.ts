import { Agent, type RequestOptions } from 'node:http'
import { HttpClient } from '@actions/http-client'
import type { HttpClientResponse } from '@actions/http-client'
import type { RequestHandler } from '@actions/http-client/lib/interfaces'
import { cleanText } from './printable.js'
import { withRetries, type AttemptFailure, type RetryOptions } from './retry.js'
import { ACTION_NAME, ACTION_VERSION } from './version.js'

/** Largest response body read; a credential is a few hundred bytes, so more is a wrong endpoint or an attack. */
export const MAX_BODY_BYTES = 1024 * 1024

export type Endpoint =
  | 'credential-provision'
  | 'create-ephemeral-token'
  | 'revoke-token'
  | 'keys-upload'
  | 'revoke-ssh-key'

/** A failed call to the service: an HTTP answer outside 2xx, or no usable answer at all. */
export class ServiceError extends Error {
  constructor(
    readonly kind: 'http' | 'network' | 'timeout' | 'bad-response',
    readonly endpoint: Endpoint,
    detail: string,
    readonly status?: number,
    readonly code?: string,
    readonly serviceMessage?: string,
    readonly retryAfterSeconds?: number
  ) {
    super(detail)
    this.name = 'ServiceError'
  }
}

export interface ServiceClientOptions {
  baseUrl: string
  maxAttempts: number
  timeoutSeconds: number
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
  async revokeCredential(apiKey: string, tunnelUser: string): Promise<'revoked' | 'already-gone'> {
    try {
      await this.call('revoke-token', { tunnel_user: tunnelUser }, { 'X-API-Key': apiKey })
      return 'revoked'
    } catch (error) {
      if (error instanceof ServiceError && error.status === 404) return 'already-gone'
      throw error
    }
  }

  /** Uploads an SSH public key line; the answer comes back unvalidated, as for tokens. */
  uploadKey(request: KeyUploadRequest): Promise<unknown> {
    const body: Record<string, unknown> = {
      public_key_ssh: request.publicKeyLine,
      name: request.name,
      expires_in_days: request.expiresInDays
    }
    if (request.clientId) body.client_id = request.clientId
    return this.call('keys-upload', body, { 'X-API-Key': request.apiKey })
  }

  /**
   * Resolves 'already-gone' on 404: the spec's "key not found or already deleted". A 403 (the key
   * belongs to another account) and a 401 (the API key was rejected) are thrown like any failure.
   */
  async revokeKey(apiKey: string, keyId: string): Promise<'revoked' | 'already-gone'> {
    try {
      await this.call('revoke-ssh-key', { key_id: keyId }, { 'X-API-Key': apiKey })
      return 'revoked'
    } catch (error) {
      if (error instanceof ServiceError && error.status === 404) return 'already-gone'
      throw error
    }
  }

  private call(
    endpoint: Endpoint,
    body: unknown,
    headers: Record<string, string>
  ): Promise<unknown> {
    const url = `${this.options.baseUrl}/${endpoint}`
    const payload = body === undefined ? '' : JSON.stringify(body)
    const allHeaders = {
      ...headers,
      Accept: 'application/json',
      ...(body !== undefined && { 'Content-Type': 'application/json' })
    }
    return withRetries(() => this.attempt(endpoint, url, payload, allHeaders), classifyFailure, {
      maxAttempts: this.options.maxAttempts,
      sleep: this.options.sleep,
      random: this.options.random,
      onRetry: this.options.onRetry
    })
  }

  /**
   * One request with a deadline over the whole exchange, body included: a socket timeout alone
   * would let a server that trickles bytes hold the job forever. A client per attempt, so that
   * disposing it closes a hung socket and the step's process can exit.
   */
  private async attempt(
    endpoint: Endpoint,
    url: string,
    payload: string,
    headers: Record<string, string>
  ): Promise<unknown> {
    const timeoutMs = this.options.timeoutSeconds * 1000
    const http = new HttpClient(`${ACTION_NAME}/${ACTION_VERSION}`, [unbracketIpv6Host], {
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
      return await Promise.race([exchange(http, endpoint, url, payload, headers, now), deadline])
    } finally {
      clearTimeout(timer)
      http.dispose()
    }
  }
}

async function exchange(
  http: HttpClient,
  endpoint: Endpoint,
  url: string,
  payload: string,
  headers: Record<string, string>,
  now: () => number
): Promise<unknown> {
  let response: HttpClientResponse
  try {
    response = await http.request('POST', url, payload, headers)
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
const unbracketIpv6Host: RequestHandler = {
  prepareRequest(options: RequestOptions) {
    const host = options.host
    if (host?.startsWith('[') && host.endsWith(']') && options.agent instanceof Agent) {
      options.host = host.slice(1, -1)
    }
  },
  canHandleAuthentication: () => false,
  handleAuthentication: () => Promise.reject(new Error('not used'))
}

/**
 * Decides from status and body whether the call succeeded; pure, so every case is testable.
 * `nowMs` turns a Retry-After date into seconds.
 */
export function interpretAnswer(
  endpoint: Endpoint,
  status: number,
  text: string,
  retryAfterHeader?: string | string[],
  nowMs = Date.now()
): unknown {
  const parsed = parseJson(text)
  if (status >= 200 && status < 300) {
    // A revoke's answer carries nothing this action needs: any 2xx says it is done, body or not.
    if (endpoint === 'revoke-token') return parsed
    if (parsed === undefined) {
      // Not a word of a 2xx body is shown: it may be a credential cut short, not yet masked.
      throw new ServiceError(
        'bad-response',
        endpoint,
        text.trim()
          ? `HTTP ${status} with a body that is not JSON (${Buffer.byteLength(text)} bytes, not shown)`
          : `HTTP ${status} with an empty body`,
        status
      )
    }
    return parsed
  }
  const errorObject =
    typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {}
  // cleanText hides credential-shaped runs: a service may echo the token in its error or code.
  const code = typeof errorObject.code === 'string' ? cleanText(errorObject.code, 40) : undefined
  const message =
    typeof errorObject.error === 'string' ? cleanText(errorObject.error, 300) : undefined
  const retryAfter =
    readRetryAfter(errorObject.retry_after) ??
    readRetryAfterHeader(firstValue(retryAfterHeader), nowMs)
  const detail = `HTTP ${status}${code ? ` ${code}` : ''}${message ? `: ${message}` : parsed === undefined ? shortBody(text) : ''}`
  throw new ServiceError('http', endpoint, detail, status, code, message, retryAfter)
}

export function classifyFailure(error: unknown): AttemptFailure {
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

function networkDetail(error: unknown): string {
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

function parseJson(text: string): unknown {
  try {
    // A leading byte order mark is not part of the JSON: the WHATWG fetch standard's json() drops
    // it too, and some gateways add one.
    return JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text)
  } catch {
    return undefined
  }
}

/** The body's `retry_after`: whole seconds, as the service documents it. */
function readRetryAfter(value: unknown): number | undefined {
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d+$/.test(value.trim())
        ? Number(value)
        : NaN
  return Number.isFinite(number) && number >= 0 ? Math.ceil(number) : undefined
}

/** The Retry-After header: seconds, or an HTTP date (which starts with the day's name). */
function readRetryAfterHeader(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined || !/^[A-Za-z]{3}/.test(value.trim())) return readRetryAfter(value)
  const at = Date.parse(value)
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - nowMs) / 1000)) : undefined
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/**
 * An error answer's body, only when short enough to help and not flood the log, and with anything
 * shaped like a credential hidden: a proxy's or a broken service's page might hold one.
 */
function shortBody(text: string): string {
  const trimmed = text.trim()
  if (!trimmed) return ' (empty body)'
  return trimmed.length <= 120
    ? ` (body: ${cleanText(trimmed, 120)})`
    : ` (${Buffer.byteLength(text)} bytes, not shown)`
}
