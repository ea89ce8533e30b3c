import { describeUnexpected } from '../text/describe-error.js'
import { printable } from '../text/printable.js'
import { AttemptsExhausted, MAX_RETRY_AFTER_SECONDS, RetryAfterTooLong } from './retry.js'
import { ServiceError, type Endpoint } from './client.js'
import { rateLimitAdvice, retryTime, shareRemedy, type Sharing } from './rate-limit-advice.js'

export interface FailureContext {
  baseUrl: string
  project?: string
  nowMs: number
  /**
   * How the host names an option where the user sets it (`input base-url`, `--base-url`):
   * advice names what the user can change. Absent: the bare option name.
   */
  label?: (name: string) => string
  /** What a 429's advice may say of `share`; absent: that it is possible. */
  sharing?: Sharing
}

const RATE_LIMITS: Record<Endpoint, string> = {
  'credential-provision': 'credential-provision allows 60 requests per hour per API key',
  'create-ephemeral-token': 'create-ephemeral-token allows 10 requests per hour per IP address',
  'revoke-token': 'revoke-token is rate limited by the service',
  'keys-upload': 'keys-upload allows 20 uploads per hour per user',
  'user-keys-list': 'user-keys-list is rate limited by the service',
  'user-tokens-list': 'user-tokens-list is rate limited by the service',
  'revoke-ssh-key': 'revoke-ssh-key is rate limited by the service'
}

type Label = (name: string) => string

const INVALID_REQUEST_HINTS: Record<Endpoint, (label: Label) => string> = {
  'credential-provision': label =>
    `Check ${label('project')}, ${label('environment')} and ${label('ttl-minutes')}.`,
  'create-ephemeral-token': label => `Check ${label('base-url')}.`,
  'revoke-token': label => `Check ${label('base-url')}.`,
  'keys-upload': label =>
    `Check ${label('client-id')}; if it is right, the service may not accept ed25519 keys.`,
  'user-keys-list': label => `Check ${label('base-url')}.`,
  'user-tokens-list': label => `Check ${label('base-url')}.`,
  'revoke-ssh-key': label => `Check ${label('base-url')}.`
}

const FORBIDDEN_HINTS: Record<Endpoint, string> = {
  'credential-provision':
    'Provisioning needs a key with the cicd:provision scope, on an account with the Developer plan or above.',
  'create-ephemeral-token': 'Check the base URL of the credential service.',
  'revoke-token': 'Use a key of the account that owns the token.',
  'keys-upload':
    'Uploading SSH keys needs an account on the Developer plan or above, and the client-id must be one of that account.',
  'user-keys-list': 'Use the API key that uploaded the key.',
  'user-tokens-list': 'Reading the tokens may need a key with the token:read scope.',
  // The spec's 403 for revoke-ssh-key: the key exists but another account uploaded it.
  'revoke-ssh-key':
    'The key belongs to another account than the API key used to revoke it: revoke with an API key of the account that uploaded it.'
}

/**
 * One message per failure for the workflow author: what happened and what to do.
 * Pure, so each case is tested on its words.
 */
export function explainFailure(error: unknown, context: FailureContext): string {
  if (error instanceof RetryAfterTooLong && error.cause instanceof ServiceError) {
    const provision = error.cause.endpoint === 'credential-provision'
    return (
      `Rate limited by the credential service (${error.cause.message}); ${RATE_LIMITS[error.cause.endpoint]}. ` +
      `It asks to wait ${error.retryAfterSeconds} s, longer than this step waits (${MAX_RETRY_AFTER_SECONDS} s), ` +
      `so it stopped instead of sleeping: re-run the job ${retryTime(context.nowMs, error.retryAfterSeconds)}` +
      (provision
        ? `, when the next provision is possible. ${shareRemedy(labelOf(context), context.sharing)}`
        : '.')
    )
  }
  if (error instanceof AttemptsExhausted && error.cause instanceof ServiceError) {
    const attempts = `${error.attempts} attempt${error.attempts === 1 ? '' : 's'}`
    return `${explainServiceError(error.cause, context)} Gave up after ${attempts} (${labelOf(context)('max-attempts')}).`
  }
  if (error instanceof ServiceError) return explainServiceError(error, context)
  return `Unexpected error: ${describeUnexpected(error)}. Please report it with the step's log.`
}

function explainServiceError(error: ServiceError, context: FailureContext): string {
  const label = labelOf(context)
  // Its own sentence, so the advice after it does not read as part of what the service said.
  const said = error.serviceMessage
    ? ` The service said: ${error.serviceMessage}${/[.!?]$/.test(error.serviceMessage) ? '' : '.'}`
    : ''
  switch (error.kind) {
    case 'network':
      return `Could not reach the credential service at ${context.baseUrl} (${error.endpoint}): ${error.message}. Check ${label('base-url')}, the runner's network, and the https_proxy / no_proxy settings.`
    case 'timeout':
      return `The credential service at ${context.baseUrl} did not answer ${error.endpoint} in time: ${error.message} (${label('timeout-seconds')}).`
    case 'bad-response':
      return `The credential service at ${context.baseUrl} sent an unusable answer to ${error.endpoint}: ${error.message}. Check that ${label('base-url')} points at the credential service (its path usually ends in /functions/v1).`
    case 'http':
      break
  }
  const status = `${error.status}${error.code ? ` ${error.code}` : ''}`
  switch (error.status) {
    case 400:
      return `The credential service rejected the request as invalid (${status}).${said} ${INVALID_REQUEST_HINTS[error.endpoint](label)}`
    case 401:
      return `The API key was rejected (${status}).${said} Check that the API key given is a current one: it exists, is not revoked and has not expired.`
    case 403:
      return `The API key is not allowed to do this (${status}).${said} ${FORBIDDEN_HINTS[error.endpoint]}`
    case 404:
      return error.endpoint === 'credential-provision'
        ? `Project "${printable(context.project ?? '', 100)}" was not found, or ${label('base-url')} does not point at the credential service's API (${status}).${said} ` +
            `Check ${label('project')} (the project's slug), or register the project first; and check that ${label('base-url')} is the service's address with its /functions/v1 path (now ${context.baseUrl}).`
        : `The credential service has no ${error.endpoint} endpoint at ${context.baseUrl} (${status}).${said} Check ${label('base-url')}.`
    case 429:
      return `Rate limited by the credential service (${status}); ${RATE_LIMITS[error.endpoint]}.${said}${rateLimitAdvice(error.endpoint, error.retryAfterSeconds, context, label)}`
  }
  if (error.status !== undefined && error.status >= 500) {
    return `The credential service failed (${status}).${said} This is on the service's side; re-run the job later.`
  }
  return `The credential service answered ${error.endpoint} with an unexpected status (${status}).${said} Check ${label('base-url')}.`
}

function labelOf(context: FailureContext): Label {
  return context.label ?? (name => name)
}
