/**
 * The shared-credential workflow when there is nothing to share, under the runner emulation: a
 * setup job that failed before it shared (the final job, `if: always()`, gets an empty output and
 * succeeds with a notice), and a pull request from a fork (no API key: with `credential: auto`
 * every job falls back to its own free credential with a notice, and the final job has nothing
 * to revoke).
 */
import { emulatedJob } from '../helpers/emulated-job.js'
import {
  runCleanupJob,
  runSetupJob,
  workflowInputs
} from '../helpers/shared-credential-workflow.js'
import { useWorkflowRuns } from '../helpers/workflow-run.js'
import { requestPaths, statusOf, useService } from './helpers.js'

const service = useService()
const newRun = useWorkflowRuns(emulatedJob, () => [service().seed.provisionKey])
/** A fork's pull request: the workflow's secrets are empty, so nothing is masked up front. */
const newForkRun = useWorkflowRuns(emulatedJob, () => [])

it('setup failed before it shared: it revoked what it provisioned, and the final job succeeds with a notice, sending nothing', async () => {
  const run = newRun({ repository: 'octo-org/octo-repo', runId: '7301' })
  // An answer without expiry cannot be shared: the setup job refuses it and revokes it.
  service().injectFault({
    kind: 'missing',
    endpoint: 'credential-provision',
    fields: ['expires_at']
  })
  const setup = await runSetupJob(run, service())
  expect(setup.main.exitCode).toBe(1)
  expect(setup.main.errors).toEqual([expect.stringContaining('it must expire')])
  expect(setup.outputs).toEqual({ 'shared-credential': '', token: '' })
  expect(requestPaths(service())).toEqual(['credential-provision', 'revoke-token'])
  expect(
    service()
      .tokens()
      .map(token => token.status)
  ).toEqual(['revoked'])

  const cleanup = await runCleanupJob(run, service(), setup.outputs['shared-credential'])
  expect([cleanup.main.exitCode, cleanup.post.exitCode]).toEqual([0, 0])
  expect(cleanup.main.notices).toEqual([expect.stringMatching(/^Nothing to revoke: .*is empty/)])
  expect(cleanup.main.env).toEqual({})
  expect(requestPaths(service())).toEqual(['credential-provision', 'revoke-token'])
}, 120_000)

it('a fork pull request without the API key: each job uses its own free credential with a notice, the final job has nothing to revoke', async () => {
  const run = newForkRun({ repository: 'octo-org/octo-repo', runId: '7302' })
  const noKey = { 'api-key': '', credential: 'auto' }
  const setup = await runSetupJob(run, service(), noKey)
  const blob = setup.outputs['shared-credential']
  expect(blob).toBe('')
  const matrix = await Promise.all(
    [0, 1].map(async () => {
      const inputs = workflowInputs(service(), {
        ...noKey,
        share: 'use',
        'shared-credential': blob
      })
      return (await run.job(inputs)).end()
    })
  )
  const cleanup = await runCleanupJob(run, service(), blob, noKey)

  const notSharing = expect.stringMatching(
    /^Not sharing: .* this job uses its own free credential\.$/
  )
  for (const job of [setup, ...matrix]) {
    expect([job.main.exitCode, job.post.exitCode]).toEqual([0, 0])
    expect(job.main.notices).toEqual([notSharing])
    expect(job.main.outputs.credential).toBe('free')
  }
  const users = [setup, ...matrix].map(job => job.main.outputs['tunnel-user'])
  expect(new Set(users).size).toBe(3)
  expect([cleanup.main.exitCode, cleanup.main.notices]).toEqual([
    0,
    [expect.stringMatching(/^Nothing to revoke: .*is empty/)]
  ])
  expect(requestPaths(service())).toEqual(Array(3).fill('create-ephemeral-token'))
  for (const user of users) expect(statusOf(service(), user)).toBe('active')
}, 120_000)
