export type Endpoint =
  | 'credential-provision'
  | 'create-ephemeral-token'
  | 'revoke-token'
  | 'keys-upload'
  | 'user-keys-list'
  | 'user-tokens-list'
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
