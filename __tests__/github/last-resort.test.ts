/**
 * The entry point's net: a bug that escapes a step becomes one clear line, never a stack trace,
 * and in post never a failed job.
 */
import { jest } from '@jest/globals'
import { runInProcess } from '../helpers/in-process-step.js'

const bug = new RangeError('Invalid time value near "tok_abc123def"')
jest.unstable_mockModule('../../src/core/provision.js', () => ({
  provision: () => Promise.reject(bug)
}))
jest.unstable_mockModule('../../src/core/revoke.js', () => ({
  revoke: () => Promise.reject(bug)
}))

it('turns an exception escaping main into one ::error:: with no secret', async () => {
  const step = await runInProcess(() => import('../../src/github/index.js').then(() => {}), {})
  expect(step.failed).toBe(true)
  expect(step.errors).toEqual([
    'Unexpected error in the main step: Invalid time value near "***". This is a bug in the action; please report it with the step\'s log.'
  ])
  expect(step.lines.filter(line => line.includes('tok_abc'))).toEqual([])
})

it('turns an exception escaping post into one warning, and the job goes on', async () => {
  const { reportUnexpected } = await import('../../src/github/last-resort.js')
  const step = await runInProcess(async () => reportUnexpected('post', bug), {})
  expect(step.failed).toBe(false)
  expect(step.errors).toEqual([])
  expect(step.warnings).toEqual([
    'Unexpected error in the post step: Invalid time value near "***". This is a bug in the action; please report it with the step\'s log.'
  ])
})
