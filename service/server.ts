/**
 * The local credential service: an in-memory stand-in for the real one, on Node's own http.
 * This file is the HTTP layer only: routing, faults and the request log around the handlers
 * in endpoints.ts. `startCredentialService` is what tests, the demo and the CLI call.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createServer as createTlsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { ADMIN_PREFIX, handleAdmin, type AdminControls } from './admin.js'
import { ENDPOINT_NAMES, ENDPOINTS, type Reply } from './endpoints.js'
import { ServiceError } from './errors.js'
import { alterBody, FaultQueue, parseFault } from './faults.js'
import { readBody, sendEmpty, sendJson, sendText } from './http-io.js'
import { buildState, type RunningService, type ServiceOptions } from './options.js'
import { loggedBody, redactHeaders, RequestLog, type RequestLogEntry } from './request-log.js'
import { DEFAULT_SEED } from './seed.js'
import type { ServiceState } from './state.js'
import { isoTime } from './tokens.js'
import { startTunnelServer, type RunningTunnel } from './tunnel/tunnel.js'

export const BASE_PATH = '/functions/v1'

export type { RunningService, ServiceOptions } from './options.js'

const errorReply = (error: unknown): Reply => {
  if (error instanceof ServiceError) return { status: error.status, body: error.toBody() }
  // Unexpected: a bug in the stand-in. Answer as the spec says a server error looks.
  process.stderr.write(`credential service: internal error: ${String(error)}\n`)
  return { status: 500, body: { error: 'Internal server error', code: 'INTERNAL_ERROR' } }
}

/** Runs a handler; a thrown ServiceError becomes its error object. */
function answer(run: () => Reply): Reply {
  try {
    return run()
  } catch (error) {
    return errorReply(error)
  }
}

/** The endpoint's answer when no fault takes over: route, method, then the handler. */
function routeServiceRequest(
  request: IncomingMessage,
  endpointName: string | null,
  rawBody: string,
  state: ServiceState
): Reply {
  const endpoint = endpointName === null ? undefined : ENDPOINTS.get(endpointName)
  if (endpoint === undefined || endpointName === null) {
    return errorReply(new ServiceError(404, 'NOT_FOUND', `Unknown endpoint: ${request.url ?? ''}`))
  }
  if (request.method !== endpoint.method) {
    // The spec has no code for a wrong method; BAD_REQUEST is the closest of its codes.
    return errorReply(
      new ServiceError(
        405,
        'BAD_REQUEST',
        `Method ${request.method ?? ''} not allowed for ${endpointName}; use ${endpoint.method}`
      )
    )
  }
  return answer(() =>
    endpoint.handle(
      {
        headers: request.headers,
        rawBody,
        clientAddress: request.socket.remoteAddress ?? 'unknown'
      },
      state
    )
  )
}

const NON_JSON_PAGE =
  '<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>\n'

export async function startCredentialService(
  options: ServiceOptions = {}
): Promise<RunningService> {
  const now = options.now ?? Date.now
  const state = buildState(options, now)
  const faults = new FaultQueue()
  const log = new RequestLog()

  const controls: AdminControls = {
    injectFault: fault => faults.add(parseFault(fault, ENDPOINT_NAMES)),
    resetFaults: () => faults.clear(),
    pendingFaults: () => faults.pending(),
    expire: tunnelUser => {
      if (!state.tokens.expire(tunnelUser, now())) {
        throw new Error(`Unknown tunnel user: ${tunnelUser}`)
      }
    },
    tokens: () => state.tokens.list(now()),
    requests: () => log.snapshot(),
    clearRequests: () => log.clear(),
    dropTunnelSessions: () => {
      if (tunnel === null)
        throw new Error('The tunnel stand-in is not running: start the service with `tunnel`')
      return tunnel.dropSessions()
    }
  }
  for (const fault of options.faults ?? []) controls.injectFault(fault)

  let tunnel: RunningTunnel | null = null
  if (options.tunnel !== undefined && options.tunnel !== false) {
    tunnel = await startTunnelServer(state.tokens, state.sshKeys, now, [state.tunnelHost], {
      ...(options.tunnel === true ? {} : options.tunnel),
      port: options.tunnelPort ?? 0,
      naming: state.naming,
      oneSessionPerCredential: options.oneSessionPerCredential ?? false,
      maxForwardsPerUser: options.maxForwardsPerUser
    })
    state.tunnelPort = tunnel.port
  }

  async function onRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const { text: rawBody, tooLarge } = await readBody(request)
    const path = new URL(request.url ?? '/', 'http://localhost').pathname
    const method = request.method ?? 'GET'

    if (path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`)) {
      const reply = answer(() =>
        handleAdmin(method, path.slice(ADMIN_PREFIX.length), rawBody, controls)
      )
      sendJson(response, reply.status, reply.body)
      return
    }

    const entry: RequestLogEntry = {
      at: isoTime(now()),
      method,
      path: request.url ?? '/',
      headers: redactHeaders(request.headers),
      body: tooLarge ? '(body above 1 MB, not kept)' : loggedBody(rawBody),
      status: null,
      fault: null
    }
    log.add(entry)
    const reply = (status: number, body: unknown, headers?: Record<string, string>): void => {
      entry.status = status
      sendJson(response, status, body, headers)
    }

    if (tooLarge) {
      reply(413, { error: 'Request body above 1 MB', code: 'BAD_REQUEST' }, { connection: 'close' })
      return
    }
    const endpointName = path.startsWith(`${BASE_PATH}/`) ? path.slice(BASE_PATH.length + 1) : null
    const fault = endpointName === null ? undefined : faults.take(endpointName)
    entry.fault = fault?.kind ?? null

    switch (fault?.kind) {
      case '500':
        reply(500, { error: 'Injected internal error', code: 'INTERNAL_ERROR' })
        return
      case '429':
        reply(429, {
          error: `Rate limit exceeded; retry after ${fault.retryAfter} seconds`,
          code: 'RATE_LIMIT',
          retry_after: fault.retryAfter
        })
        return
      case 'hang':
        // Never answer; close() ends the socket so nothing outlives the service.
        return
      case 'handled-hang':
        routeServiceRequest(request, endpointName, rawBody, state)
        return
      case 'close':
        request.socket.destroy()
        return
      case 'non-json':
        entry.status = 200
        sendText(response, 200, 'text/html; charset=utf-8', NON_JSON_PAGE)
        return
      case 'no-body':
        // Handled for real (a revoke does revoke), so only the missing body differs.
        routeServiceRequest(request, endpointName, rawBody, state)
        entry.status = fault.status
        sendEmpty(response, fault.status)
        return
      default: {
        const real = routeServiceRequest(request, endpointName, rawBody, state)
        reply(real.status, fault === undefined ? real.body : alterBody(fault, real.body))
      }
    }
  }

  const listener = (request: IncomingMessage, response: ServerResponse): void => {
    onRequest(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        sendJson(response, errorReply(error).status, errorReply(error).body)
    })
  }
  const server = options.tls ? createTlsServer(options.tls, listener) : createServer(listener)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  }).catch(async (error: unknown) => {
    await tunnel?.close()
    throw error
  })

  const { address, port } = server.address() as AddressInfo
  const hostInUrl = address.includes(':') ? `[${address}]` : address
  const origin = `${options.tls ? 'https' : 'http'}://${hostInUrl}:${port}`
  let closing: Promise<void> | undefined

  return {
    baseUrl: `${origin}${BASE_PATH}`,
    origin,
    adminUrl: `${origin}${ADMIN_PREFIX}`,
    port,
    tunnelHost: state.tunnelHost,
    tunnelPort: state.tunnelPort,
    answerShape: state.answerShape,
    naming: { ...state.naming },
    tunnel,
    seed: { ...DEFAULT_SEED },
    ...controls,
    sshKeys: () => state.sshKeys.list(now()),
    expireSshKey: keyId => {
      if (!state.sshKeys.expire(keyId, now())) throw new Error(`Unknown SSH key: ${keyId}`)
    },
    close: () => {
      closing ??= Promise.all([
        new Promise<void>((resolve, reject) => {
          server.close(error => (error === undefined ? resolve() : reject(error)))
          // Hung requests and idle keep-alive sockets would otherwise keep close() waiting.
          server.closeAllConnections()
        }),
        tunnel?.close()
      ]).then(() => undefined)
      return closing
    }
  }
}
