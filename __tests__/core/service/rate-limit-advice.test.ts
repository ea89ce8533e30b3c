/**
 * A 429 from credential-provision, in the words the workflow author reads: when the next
 * provision is possible (a UTC time and a wait), and `share` as the way out for a pipeline with
 * many jobs, named as the host names the option.
 */
import { explainFailure } from '../../../src/core/service/failures.js'
import { formatWait } from '../../../src/core/service/rate-limit-advice.js'
import { AttemptsExhausted, RetryAfterTooLong } from '../../../src/core/service/retry.js'
import { ServiceError, type Endpoint } from '../../../src/core/service/client.js'

const NOW = Date.parse('2026-11-23T10:00:00Z')
const github = {
  baseUrl: 'https://svc.example.test/functions/v1',
  project: 'web-shop',
  nowMs: NOW,
  label: (name: string) => `input ${name}`
}
const cli = { ...github, label: (name: string) => `--${name}` }

function limited(endpoint: Endpoint, retryAfter?: number): ServiceError {
  return new ServiceError(
    'http',
    endpoint,
    'HTTP 429 RATE_LIMIT: limit',
    429,
    'RATE_LIMIT',
    'limit',
    retryAfter
  )
}

const REMEDY_GITHUB =
  'A pipeline with many jobs can provision once per run instead of once per job: ' +
  'set input share to create in one setup job, and to use in the jobs that need the tunnel.'

it('names the time and the wait of the next provision, and share, when the wait is too long to sleep', () => {
  expect(
    explainFailure(new RetryAfterTooLong(limited('credential-provision', 2700), 2700), github)
  ).toBe(
    'Rate limited by the credential service (HTTP 429 RATE_LIMIT: limit); credential-provision allows 60 requests per hour per API key. ' +
      'It asks to wait 2700 s, longer than this step waits (60 s), so it stopped instead of sleeping: ' +
      `re-run the job after 2026-11-23T10:45:00Z (in 45 min), when the next provision is possible. ${REMEDY_GITHUB}`
  )
})

it('names the option as the CLI spells it', () => {
  const message = explainFailure(
    new RetryAfterTooLong(limited('credential-provision', 3600), 3600),
    cli
  )
  expect(message).toContain('re-run the job after 2026-11-23T11:00:00Z (in 1 h)')
  expect(message).toContain('set --share to create in one setup job, and to use in the jobs')
  expect(message).not.toContain('input share')
})

it('says when, and share, after the attempts ran out on short waits', () => {
  const error = new AttemptsExhausted(limited('credential-provision', 42), 3)
  expect(explainFailure(error, github)).toBe(
    'Rate limited by the credential service (429 RATE_LIMIT); credential-provision allows 60 requests per hour per API key. The service said: limit. ' +
      `The next provision is possible after 2026-11-23T10:00:42Z (in 42 s). ${REMEDY_GITHUB} ` +
      'Gave up after 3 attempts (input max-attempts).'
  )
})

it('bounds the wait by the hour the limit counts when the service gives no retry_after', () => {
  expect(explainFailure(limited('credential-provision'), github)).toBe(
    'Rate limited by the credential service (429 RATE_LIMIT); credential-provision allows 60 requests per hour per API key. The service said: limit. ' +
      'The service did not say when; it counts requests per hour, so the next provision is possible after 2026-11-23T11:00:00Z (in 1 h) at the latest. ' +
      REMEDY_GITHUB
  )
})

it('rounds a time between seconds up, so that the time named is never early', () => {
  const context = { ...github, nowMs: NOW + 400 }
  expect(explainFailure(limited('credential-provision', 5), context)).toContain(
    'The next provision is possible after 2026-11-23T10:00:06Z (in 5 s).'
  )
})

it('stays total when the wait is past what a Date can hold', () => {
  expect(
    explainFailure(new RetryAfterTooLong(limited('credential-provision', 1e13), 1e13), github)
  ).toContain(
    're-run the job later, when the next provision is possible. A pipeline with many jobs'
  )
})

it.each<Endpoint>(['revoke-token', 'create-ephemeral-token', 'keys-upload'])(
  'does not offer share for a 429 from %s, which sharing does not spare',
  endpoint => {
    expect(explainFailure(limited(endpoint, 30), github)).not.toMatch(/share|next provision/)
    expect(explainFailure(new RetryAfterTooLong(limited(endpoint, 120), 120), github)).toMatch(
      /re-run the job after 2026-11-23T10:02:00Z \(in 2 min\)\.$/
    )
  }
)

it.each([
  [0, '0 s'],
  [59, '59 s'],
  [60, '1 min'],
  [125, '2 min 5 s'],
  [3599, '59 min 59 s'],
  [3600, '1 h'],
  [3601, '1 h 1 min'],
  [5400, '1 h 30 min'],
  [90000, '25 h']
])('says a wait of %d s as %s', (seconds, said) => {
  expect(formatWait(seconds)).toBe(said)
})

it('tells a step that already shares where the rest of the count came from, not to share', () => {
  const context = { ...cli, sharing: 'this-step' as const }
  for (const error of [
    limited('credential-provision', 30),
    new RetryAfterTooLong(limited('credential-provision', 3600), 3600)
  ]) {
    const message = explainFailure(error, context)
    expect(message).toMatch(
      / This step already provisions once for the whole run \(--share is create\): other runs, or other jobs with the same API key, used up the limit\.$/
    )
    expect(message).not.toContain('A pipeline with many jobs')
  }
})

it('does not send a step to share where sharing is refused, on a CI system without a run identity', () => {
  const message = explainFailure(new RetryAfterTooLong(limited('credential-provision', 600), 600), {
    ...cli,
    sharing: 'not-here'
  })
  expect(message).toMatch(
    /re-run the job after 2026-11-23T10:10:00Z \(in 10 min\), when the next provision is possible\. One credential per run \(--share\) works on GitHub Actions and GitLab CI only; here, fewer jobs that provision in an hour stay under the limit\.$/
  )
})
