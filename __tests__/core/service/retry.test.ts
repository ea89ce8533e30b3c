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

it('sleeps through a retry_after of exactly 60 s, the longest it waits for', async () => {
  const sleeps: number[] = []
  let calls = 0
  const result = await withRetries(
    async () => {
      if (++calls === 1) throw new Error('429')
      return 'ok'
    },
    () => ({ retryable: true, retryAfterSeconds: 60 }),
    { maxAttempts: 3, sleep: async ms => void sleeps.push(ms), random: () => 0 }
  )
  expect([result, sleeps]).toStrictEqual(['ok', [60_000]])
})

it('says why it gave up on a long retry_after, keeping the failure', async () => {
  const failure = new Error('429')
  const error = await withRetries(
    () => Promise.reject(failure),
    () => ({ retryable: true, retryAfterSeconds: 61 }),
    { maxAttempts: 3, sleep: async () => {}, random: () => 0 }
  ).catch(e => e)
  expect(error.message).toBe('retry_after of 61 s exceeds 60 s')
  expect(error.name).toBe('RetryAfterTooLong')
  expect(error.cause).toBe(failure)
})

it('tells each retry before its wait, and makes exactly maxAttempts attempts', async () => {
  const failure = new Error('down')
  const told: unknown[] = []
  const sleeps: number[] = []
  let calls = 0
  const error = await withRetries(() => (calls++, Promise.reject(failure)), retryable, {
    maxAttempts: 3,
    sleep: async ms => void sleeps.push(ms),
    random: () => 0.5,
    onRetry: info => told.push(info)
  }).catch(e => e)
  expect(calls).toBe(3)
  expect(sleeps).toStrictEqual([750, 1500])
  expect(told).toStrictEqual([
    { attempt: 1, maxAttempts: 3, delayMs: 750, error: failure },
    { attempt: 2, maxAttempts: 3, delayMs: 1500, error: failure }
  ])
  expect(error.message).toBe('gave up after 3 attempt(s)')
  expect(error.name).toBe('AttemptsExhausted')
})

it('makes one attempt only when maxAttempts is 1', async () => {
  let calls = 0
  const error = await withRetries(() => (calls++, Promise.reject(new Error('down'))), retryable, {
    maxAttempts: 1,
    sleep: async () => {
      throw new Error('no wait expected')
    },
    random: () => 0
  }).catch(e => e)
  expect([calls, error.attempts]).toStrictEqual([1, 1])
})

it('waits no time for a negative retry_after, and caps the backoff at 10 s', () => {
  expect(backoffDelay(1, -5, () => 0.5)).toBe(0)
  expect(backoffDelay(1, 0, () => 0.5)).toBe(0)
  expect([4, 5, 6].map(n => backoffDelay(n, undefined, () => 0.999))).toEqual([7996, 9995, 9995])
})
