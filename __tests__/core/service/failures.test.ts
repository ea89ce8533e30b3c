import { explainFailure } from '../../../src/core/service/failures.js'
import { AttemptsExhausted, RetryAfterTooLong } from '../../../src/core/service/retry.js'
import { ServiceError } from '../../../src/core/service/client.js'

const context = {
  baseUrl: 'https://svc.example.test/functions/v1',
  project: 'web-shop',
  nowMs: Date.parse('2026-11-23T10:00:00Z'),
  // As the GitHub host names its options.
  label: (name: string) => `input ${name}`
}

it('says the request timed out and which input sets the limit', () => {
  const error = new ServiceError('timeout', 'credential-provision', 'no answer within 30 s')
  expect(explainFailure(new AttemptsExhausted(error, 2), context)).toBe(
    'The credential service at https://svc.example.test/functions/v1 did not answer credential-provision in time: no answer within 30 s (input timeout-seconds). Gave up after 2 attempts (input max-attempts).'
  )
})

it('points at base-url for an unusable answer', () => {
  const error = new ServiceError(
    'bad-response',
    'create-ephemeral-token',
    'HTTP 200 with an empty body'
  )
  expect(explainFailure(error, context)).toMatch(
    /sent an unusable answer to create-ephemeral-token: HTTP 200 with an empty body\. Check that input base-url points at the credential service/
  )
})

it('reads a 404 from revoke-token as a wrong base-url, not a missing project', () => {
  const error = new ServiceError('http', 'create-ephemeral-token', 'HTTP 404', 404)
  expect(explainFailure(error, context)).toBe(
    'The credential service has no create-ephemeral-token endpoint at https://svc.example.test/functions/v1 (404). Check input base-url.'
  )
})

it('names an unexpected status', () => {
  const error = new ServiceError('http', 'credential-provision', 'HTTP 302', 302)
  expect(explainFailure(error, context)).toBe(
    'The credential service answered credential-provision with an unexpected status (302). Check input base-url.'
  )
})

it('says when a rate limit frees up, from the injected clock', () => {
  const limited = new ServiceError(
    'http',
    'revoke-token',
    'HTTP 429 RATE_LIMIT',
    429,
    'RATE_LIMIT',
    undefined,
    120
  )
  expect(explainFailure(new RetryAfterTooLong(limited, 120), context)).toMatch(
    /re-run the job after 2026-11-23T10:02:00Z \(in 2 min\)\.$/
  )
})

it('asks for a report on an error it did not expect', () => {
  expect(explainFailure(new TypeError('x is undefined'), context)).toBe(
    "Unexpected error: x is undefined. Please report it with the step's log."
  )
  expect(explainFailure('odd', context)).toBe(
    "Unexpected error: odd. Please report it with the step's log."
  )
})

it('stays total when a retry_after puts the time past what a Date can hold', () => {
  const limited = new ServiceError('http', 'credential-provision', 'HTTP 429', 429)
  expect(explainFailure(new RetryAfterTooLong(limited, 1e13), context)).toMatch(
    /It asks to wait 10000000000000 s, .* re-run the job later, when the next provision is possible\. /
  )
})

it('names both causes of a 404 from credential-provision', () => {
  const error = new ServiceError('http', 'credential-provision', 'HTTP 404', 404, 'NOT_FOUND')
  expect(explainFailure(error, context)).toBe(
    `Project "web-shop" was not found, or input base-url does not point at the credential service's API (404 NOT_FOUND). ` +
      `Check input project (the project's slug), or register the project first; and check that input base-url is the service's address with its /functions/v1 path (now https://svc.example.test/functions/v1).`
  )
})

it('hides credentials and line breaks in an unexpected error', () => {
  const error = new SyntaxError('Unexpected token in "{"token":"tok_abc123"\n::warning::x')
  expect(explainFailure(error, context)).toBe(
    'Unexpected error: Unexpected token in "{"token":"***"\\u000a::warning::x. Please report it with the step\'s log.'
  )
})

it('names options as the host labels them, so a command-line user is told the flag to change', () => {
  const error = new ServiceError('http', 'credential-provision', 'HTTP 400', 400)
  const cli = { ...context, label: (name: string) => `--${name}` }
  expect(explainFailure(new AttemptsExhausted(error, 3), cli)).toBe(
    'The credential service rejected the request as invalid (400). Check --project, --environment and --ttl-minutes. Gave up after 3 attempts (--max-attempts).'
  )
})
