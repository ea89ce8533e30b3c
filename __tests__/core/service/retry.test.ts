import {
  AttemptsExhausted,
  backoffDelay,
  RetryAfterTooLong,
  withRetries
} from '../../../src/core/service/retry.js'

const retryable = () => ({ retryable: true })

it('doubles the backoff per attempt with jitter, up to a ceiling', () => {
  expect([1, 2, 3, 4, 5, 6].map(n => backoffDelay(n, undefined, () => 0))).toEqual([
    500, 1000, 2000, 4000, 5000, 5000
  ])
  expect([1, 2, 3].map(n => backoffDelay(n, undefined, () => 0.999))).toEqual([1000, 1999, 3998])
})

it('waits exactly retry_after when the service gives one', () => {
  expect(backoffDelay(1, 7, () => 0.9)).toBe(7000)
})

it('stops retrying once an attempt succeeds', async () => {
  const sleeps: number[] = []
  let calls = 0
  const result = await withRetries(
    async () => {
      if (++calls < 3) throw new Error('flaky')
      return 'ok'
    },
    retryable,
    { maxAttempts: 5, sleep: async ms => void sleeps.push(ms), random: () => 0 }
  )
  expect(result).toBe('ok')
  expect(sleeps).toEqual([500, 1000])
})

it('rethrows a failure that is not retryable, untouched', async () => {
  const failure = new Error('400')
  await expect(
    withRetries(
      () => Promise.reject(failure),
      () => ({ retryable: false }),
      { maxAttempts: 3, sleep: async () => {}, random: () => 0 }
    )
  ).rejects.toBe(failure)
})

it('gives up at once on a retry_after over a minute', async () => {
  const error = await withRetries(
    () => Promise.reject(new Error('429')),
    () => ({ retryable: true, retryAfterSeconds: 61 }),
    { maxAttempts: 3, sleep: async () => {}, random: () => 0 }
  ).catch(e => e)
  expect(error).toBeInstanceOf(RetryAfterTooLong)
  expect(error).toMatchObject({ retryAfterSeconds: 61 })
})

it('reports how many attempts it made', async () => {
  const error = await withRetries(() => Promise.reject(new Error('down')), retryable, {
    maxAttempts: 4,
    sleep: async () => {},
    random: () => 0
  }).catch(e => e)
  expect(error).toBeInstanceOf(AttemptsExhausted)
  expect(error).toMatchObject({ attempts: 4, cause: new Error('down') })
})
