/**
 * Fault injection: "the next N requests (optionally only to one endpoint) answer badly".
 * Faults wait in a queue; each request under /functions/v1 takes the first fault that matches
 * it, so "500, then 429, then success" is two injections in that order.
 */

export const FAULT_KINDS = [
  '500',
  '429',
  'hang',
  'close',
  'non-json',
  'hostile',
  'missing',
  'no-body',
  'handled-hang'
] as const
export type FaultKind = (typeof FAULT_KINDS)[number]

export type FaultBehaviour =
  /** 500 with an INTERNAL_ERROR error object; the request is not handled. */
  | { kind: '500' }
  /** 429 with a RATE_LIMIT error object carrying this retry_after; the request is not handled. */
  | { kind: '429'; retryAfter: number }
  /** Never answers; the socket stays open until the client gives up or the server closes. */
  | { kind: 'hang' }
  /** Destroys the socket without any response. */
  | { kind: 'close' }
  /** 200 with an HTML body, as a misconfigured proxy would send. */
  | { kind: 'non-json' }
  /** The request is handled for real, then `override` is merged into the JSON answer. */
  | { kind: 'hostile'; override: Record<string, unknown> }
  /** The request is handled for real, then these fields are removed from the JSON answer. */
  | { kind: 'missing'; fields: string[] }
  /**
   * The request is handled for real, then answered with this status and an empty body, as
   * some gateways answer: 204, or a 200 whose body they dropped. Default 204.
   */
  | { kind: 'no-body'; status: number }
  /**
   * The request is handled for real (a key upload stores the key), then never answered: the
   * answer is lost, as when a gateway times out after the service did the work.
   */
  | { kind: 'handled-hang' }

export type Fault = FaultBehaviour & {
  /** How many matching requests this fault answers; default 1. */
  count?: number
  /** Only requests to this endpoint (e.g. `credential-provision`) match; default any. */
  endpoint?: string
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1

/**
 * Checks a fault given as JSON (admin endpoint, `--fault` flag) or in code. Throws an Error
 * whose message says what is wrong, so a typo in a test fails loudly instead of injecting nothing.
 */
export function parseFault(input: unknown, knownEndpoints: readonly string[]): Fault {
  if (!isPlainObject(input)) throw new Error('A fault must be a JSON object')
  const { kind, count, endpoint } = input
  if (!(FAULT_KINDS as readonly unknown[]).includes(kind)) {
    throw new Error(
      `Fault kind must be one of ${FAULT_KINDS.join(', ')}; got ${JSON.stringify(kind)}`
    )
  }
  if (count !== undefined && !isCount(count)) {
    throw new Error(`Fault count must be an integer of at least 1; got ${JSON.stringify(count)}`)
  }
  if (endpoint !== undefined && !knownEndpoints.includes(endpoint as string)) {
    throw new Error(
      `Fault endpoint must be one of ${knownEndpoints.join(', ')}; got ${JSON.stringify(endpoint)}`
    )
  }
  const scope = {
    ...(count === undefined ? {} : { count }),
    ...(endpoint === undefined ? {} : { endpoint: endpoint as string })
  }
  switch (kind as FaultKind) {
    case '429': {
      const retryAfter = input.retryAfter ?? input.retry_after
      if (typeof retryAfter !== 'number' || !Number.isInteger(retryAfter) || retryAfter < 0) {
        throw new Error(
          `A 429 fault needs retryAfter, an integer number of seconds; got ${JSON.stringify(retryAfter)}`
        )
      }
      return { kind: '429', retryAfter, ...scope }
    }
    case 'hostile':
      if (!isPlainObject(input.override)) {
        throw new Error('A hostile fault needs override, an object merged into the answer')
      }
      return { kind: 'hostile', override: input.override, ...scope }
    case 'missing': {
      const fields = input.fields
      if (
        !Array.isArray(fields) ||
        fields.length === 0 ||
        !fields.every(field => typeof field === 'string')
      ) {
        throw new Error('A missing fault needs fields, a non-empty array of field names to remove')
      }
      return { kind: 'missing', fields, ...scope }
    }
    case 'no-body': {
      const status = input.status ?? 204
      if (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599) {
        throw new Error(
          `A no-body fault's status must be an integer from 200 to 599; got ${JSON.stringify(status)}`
        )
      }
      return { kind: 'no-body', status, ...scope }
    }
    default:
      return { kind: kind as '500' | 'hang' | 'close' | 'non-json' | 'handled-hang', ...scope }
  }
}

interface QueuedFault {
  fault: Fault
  remaining: number
}

export class FaultQueue {
  private queue: QueuedFault[] = []

  add(fault: Fault): void {
    this.queue.push({ fault, remaining: fault.count ?? 1 })
  }

  clear(): void {
    this.queue = []
  }

  /** Faults not yet used up, with how many requests each still answers. */
  pending(): Array<Fault & { remaining: number }> {
    return this.queue.map(({ fault, remaining }) => ({ ...fault, remaining }))
  }

  /** The fault that answers a request to `endpoint`, used up by one; undefined: answer normally. */
  take(endpoint: string): Fault | undefined {
    const index = this.queue.findIndex(
      ({ fault }) => fault.endpoint === undefined || fault.endpoint === endpoint
    )
    if (index === -1) return undefined
    const entry = this.queue[index]
    entry.remaining -= 1
    if (entry.remaining === 0) this.queue.splice(index, 1)
    return entry.fault
  }
}

/** Applies a hostile or missing fault to a real JSON answer. Non-object answers pass through. */
export function alterBody(fault: Fault, body: unknown): unknown {
  if (!isPlainObject(body)) return body
  if (fault.kind === 'hostile') return { ...body, ...fault.override }
  if (fault.kind === 'missing') {
    const altered = { ...body }
    for (const field of fault.fields) delete altered[field]
    return altered
  }
  return body
}
