import type nock from 'nock'

/**
 * No real network while a nock test file runs; interceptors cleared after each test; and nock's
 * process-wide patch of http undone at the end, because later files in the same Jest worker
 * (the proxy and socket tests) need the real one.
 */
export function useNock(instance: typeof nock): void {
  beforeAll(() => instance.disableNetConnect())
  afterEach(() => instance.cleanAll())
  afterAll(() => {
    instance.enableNetConnect()
    instance.restore()
  })
}
