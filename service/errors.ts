/**
 * The spec's error object and the one exception type the handlers throw to produce it.
 * Handlers throw instead of returning so that validation can stop at the first problem.
 */

export type ErrorCode =
  'BAD_REQUEST' | 'UNAUTHORIZED' | 'FORBIDDEN' | 'NOT_FOUND' | 'RATE_LIMIT' | 'INTERNAL_ERROR'

export interface ErrorBody {
  error: string
  code: ErrorCode
  retry_after?: number
}

export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly retryAfter?: number
  ) {
    super(message)
    this.name = 'ServiceError'
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { error: this.message, code: this.code }
    if (this.retryAfter !== undefined) body.retry_after = this.retryAfter
    return body
  }
}

export const badRequest = (message: string): ServiceError =>
  new ServiceError(400, 'BAD_REQUEST', message)
export const unauthorized = (message: string): ServiceError =>
  new ServiceError(401, 'UNAUTHORIZED', message)
export const forbidden = (message: string): ServiceError =>
  new ServiceError(403, 'FORBIDDEN', message)
export const notFound = (message: string): ServiceError =>
  new ServiceError(404, 'NOT_FOUND', message)
export const rateLimited = (retryAfter: number): ServiceError =>
  new ServiceError(
    429,
    'RATE_LIMIT',
    `Rate limit exceeded; retry after ${retryAfter} seconds`,
    retryAfter
  )
