/**
 * Retries as the service sees them: how many requests arrived and how far apart, and what the
 * step did in the end. Time limits are loose bounds, not measurements.
 */
import {
  annotations,
  expectFailedMain,
  expectNoLeak,
  inputsFor,
  runAction,
  useService
} from './helpers.js'

const service = useService()
// Retries wait for real (backoff, retry_after, timeouts), beyond Jest's default 5 s per test.

const gapsMs = () => {
  const times = service()
    .requests()
    .map(r => Date.parse(r.at))
  return times.slice(1).map((t, i) => t - times[i])
}

it('retries a 500 answer and succeeds', async () => {
  service().injectFault({ kind: '500' })
  const { main, post } = await runAction(inputsFor(service()))
  expect(main.exitCode).toBe(0)
  expect(main.env.SVC_TUNNEL_TOKEN).toMatch(/^tok_/)
  expect(
    service()
      .requests()
      .map(r => r.status)
  ).toEqual([500, 200])
  expect(main.stdout).toMatch(/Attempt 1 of 3 failed.*retrying in/)
  expectNoLeak(main, {
    secrets: [service().seed.provisionKey, main.env.SVC_TUNNEL_TOKEN],
    mustMask: [main.env.SVC_TUNNEL_TOKEN],
    about: [main.env.SVC_TUNNEL_USER]
  })
  await post()
}, 15_000)

it('waits a short retry_after (1 s) on 429, then succeeds', async () => {
  service().injectFault({ kind: '429', retryAfter: 1 })
  const { main, post } = await runAction(inputsFor(service()))
  expect(main.exitCode).toBe(0)
  expect(main.env.SVC_TUNNEL_USER).not.toBe('')
  expect(
    service()
      .requests()
      .map(r => r.status)
  ).toEqual([429, 200])
  expect(gapsMs()[0]).toBeGreaterThanOrEqual(950)
  await post()
}, 15_000)

it('fails fast on a 429 that asks for an hour, saying when to re-run', async () => {
  service().injectFault({ kind: '429', retryAfter: 3600 })
  const { main } = await runAction(inputsFor(service()))
  expectFailedMain(main, /3600 s.*re-run the job after \d{4}-\d\d-\d\dT/)
  expect(service().requests()).toHaveLength(1)
  expect(main.durationMs).toBeLessThan(5000)
}, 15_000)

it('gives up on a hung server after timeout-seconds × max-attempts plus backoff', async () => {
  service().injectFault({ kind: 'hang', count: 2 })
  const { main } = await runAction(
    inputsFor(service(), { 'timeout-seconds': '1', 'max-attempts': '2' })
  )
  expectFailedMain(main, /did not answer credential-provision in time.*after 2 attempts/)
  expect(service().requests()).toHaveLength(2)
  // 2 × 1 s, plus at most 1 s of backoff after the first attempt, plus process start.
  expect(main.durationMs).toBeGreaterThanOrEqual(2000)
  expect(main.durationMs).toBeLessThan(6000)
}, 15_000)

it('fails after max-attempts 5xx answers and says how many attempts were made', async () => {
  service().injectFault({ kind: '500', count: 2 })
  const { main } = await runAction(inputsFor(service(), { 'max-attempts': '2' }))
  expectFailedMain(main, /failed \(500 INTERNAL_ERROR\).*Gave up after 2 attempts/)
  expect(annotations(main, 'warning')).toEqual([])
  expect(service().requests()).toHaveLength(2)
}, 15_000)
