import { runInProcess } from '../helpers/in-process-step.js'

it('runs the post step when main saved its marker, and main otherwise', async () => {
  // The bundle's entry runs on import; the module cache lets it run once per file, so the second
  // step is checked by calling what the first proved it dispatches to.
  const post = await runInProcess(
    () => import('../../src/github/index.js').then(() => {}),
    {},
    { state: { isPost: 'true' } }
  )
  expect(post.lines).toEqual([
    'Nothing to revoke: no credential was provisioned, or it was already revoked.'
  ])
  expect(post.state).toEqual({})

  const { runMain } = await import('../helpers/github-steps.js')
  const main = await runInProcess(() => runMain(), { 'base-url': '' })
  expect(main.state).toEqual({ isPost: 'true' })
  expect(main.errors[0]).toMatch(/^Input api-key is empty/)
})

it('has a system clock that really waits', async () => {
  const { systemClock } = await import('../../src/core/clock.js')
  const started = systemClock.now()
  await systemClock.sleep(20)
  expect(systemClock.now() - started).toBeGreaterThanOrEqual(15)
  expect(systemClock.random()).toBeGreaterThanOrEqual(0)
})
