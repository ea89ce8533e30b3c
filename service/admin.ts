/**
 * The admin endpoints under /__admin: the programmatic controls, reachable over HTTP for
 * shell recipes and other processes. They sit outside /functions/v1 so no fault, log entry or
 * credential check ever touches them, and a client under test cannot reach them by accident.
 */
import { badRequest, notFound, ServiceError } from './errors.js'
import { ENDPOINT_NAMES, type Reply } from './endpoints.js'
import { parseFault, type Fault } from './faults.js'
import type { RequestLogEntry } from './request-log.js'
import type { TunnelTokenView } from './tokens.js'
import { parseJsonObject, parseRevokeRequest } from './validate.js'

export const ADMIN_PREFIX = '/__admin'

/** The subset of the running service's controls the admin endpoints expose. */
export interface AdminControls {
  /** Queues a fault; throws if it is malformed. */
  injectFault(fault: Fault): void
  resetFaults(): void
  pendingFaults(): Array<Fault & { remaining: number }>
  /** Makes the token expire now; throws if the tunnel user is unknown. */
  expire(tunnelUser: string): void
  /** A snapshot of every token, as `user-tokens-list` would show it. */
  tokens(): TunnelTokenView[]
  /** A snapshot of the requests received under /functions/v1, oldest first, secrets redacted. */
  requests(): RequestLogEntry[]
  clearRequests(): void
  /**
   * Closes every open tunnel SSH connection without revoking anything, so a client's
   * reconnection can be tested; returns how many sessions it ended. Throws without the tunnel.
   */
  dropTunnelSessions(): number
}

const ok = (body: unknown): Reply => ({ status: 200, body })

function injectFaults(rawBody: string, controls: AdminControls): Reply {
  let parsed: unknown
  try {
    parsed = JSON.parse(rawBody)
  } catch {
    throw badRequest('Body must be a fault object or an array of fault objects')
  }
  const faults = Array.isArray(parsed) ? parsed : [parsed]
  let checked: Fault[]
  try {
    // Check all before adding any, so a bad entry in a list leaves the queue unchanged.
    checked = faults.map(fault => parseFault(fault, ENDPOINT_NAMES))
  } catch (error) {
    throw badRequest((error as Error).message)
  }
  for (const fault of checked) controls.injectFault(fault)
  return ok({ injected: checked.length, pending: controls.pendingFaults() })
}

/** Answers one admin request; `route` is the path after /__admin, e.g. `/faults`. */
export function handleAdmin(
  method: string,
  route: string,
  rawBody: string,
  controls: AdminControls
): Reply {
  const key = `${method} ${route}`
  switch (key) {
    case 'POST /faults':
      return injectFaults(rawBody, controls)
    case 'GET /faults':
      return ok({ pending: controls.pendingFaults() })
    case 'POST /reset':
      controls.resetFaults()
      return ok({ success: true, message: 'Faults cleared' })
    case 'POST /expire': {
      const { tunnelUser } = parseRevokeRequest(parseJsonObject(rawBody))
      try {
        controls.expire(tunnelUser)
      } catch {
        throw notFound(`Token not found: ${JSON.stringify(tunnelUser)}`)
      }
      return ok({ success: true, message: `Token ${tunnelUser} expired` })
    }
    case 'GET /tokens':
      return ok({ tokens: controls.tokens() })
    case 'GET /requests':
      return ok({ requests: controls.requests() })
    case 'DELETE /requests':
      controls.clearRequests()
      return ok({ success: true, message: 'Request log cleared' })
    case 'POST /tunnel/drop': {
      let dropped: number
      try {
        dropped = controls.dropTunnelSessions()
      } catch (error) {
        throw notFound((error as Error).message)
      }
      return ok({ success: true, dropped, message: `Dropped ${dropped} tunnel session(s)` })
    }
    default:
      throw new ServiceError(404, 'NOT_FOUND', `No admin endpoint ${key}`)
  }
}
