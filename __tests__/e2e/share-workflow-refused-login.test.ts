/**
 * `share: use` with `expose` when the tunnel server refuses the login, through the bundled action
 * under the runner emulation. An SSH refusal carries no reason, and two causes look the same, so
 * the step asks the service for the token's state (user-tokens-list) and says which it is: a
 * credential the final job already revoked (a matrix job re-run after it: re-run all jobs), or a
 * server that allows one session per credential (set share to off). Nothing is exported, and the
 * refused job revokes nothing.
 */
import { startLocalApp } from '../../scripts/openssh.js'
import type { RunningService } from '../../service/server.js'
import { emulatedJob } from '../helpers/emulated-job.js'
import { expectRefusedBeforeExport } from '../helpers/refused-step.js'
import {
  matrixInputs,
  requestAsRunStep,
  runCleanupJob,
  runSetupJob
} from '../helpers/shared-credential-workflow.js'
import { useWorkflowRuns } from '../helpers/workflow-run.js'
import { statusOf, useService } from './helpers.js'

let app: Awaited<ReturnType<typeof startLocalApp>>
beforeAll(async () => (app = await startLocalApp('answer from the first matrix job')))
afterAll(() => app?.close())

const endpoints = (service: RunningService) =>
  service.requests().map(request => request.path.replace('/functions/v1/', ''))

describe('a server that allows several sessions per credential (the default)', () => {
  const service = useService({ tunnel: { checkIntervalMs: 100 } })
  const newRun = useWorkflowRuns(emulatedJob, () => [service().seed.provisionKey])

  it('a matrix job re-run after the final job revoked the credential: says to re-run all jobs', async () => {
    const run = newRun({ repository: 'octo-org/octo-repo', runId: '7201' })
    const setup = await runSetupJob(run, service())
    const blob = setup.outputs['shared-credential']
    const user = setup.main.outputs['tunnel-user']
    expect((await runCleanupJob(run, service(), blob)).main.exitCode).toBe(0)
    expect(statusOf(service(), user)).toBe('revoked')

    // "Re-run failed jobs": attempt 2 of the same run, with the first attempt's setup output.
    service().clearRequests()
    const rerun = await run.job(matrixInputs(service(), blob, 0, app.port), {
      env: { GITHUB_RUN_ATTEMPT: '2' }
    })
    expectRefusedBeforeExport(
      rerun.main,
      /^The tunnel did not start: .*The service no longer lists the token as active: the shared credential was revoked .*: re-run all jobs, so that the setup job shares a new credential\.$/
    )
    expect(endpoints(service())).toEqual(['user-tokens-list'])
    expect((await rerun.end()).post.exitCode).toBe(0)
    expect(endpoints(service())).toEqual(['user-tokens-list'])
  }, 120_000)
})

describe('a server that allows one session per credential', () => {
  const service = useService({ tunnel: { checkIntervalMs: 100 }, oneSessionPerCredential: true })
  const newRun = useWorkflowRuns(emulatedJob, () => [service().seed.provisionKey])

  it('refuses the second matrix job, which says to set share to off; the first serves on', async () => {
    const run = newRun({ repository: 'octo-org/octo-repo', runId: '7203' })
    const setup = await runSetupJob(run, service())
    const blob = setup.outputs['shared-credential']
    const first = await run.job(matrixInputs(service(), blob, 0, app.port))
    expect(first.main.exitCode).toBe(0)

    service().clearRequests()
    const second = await run.job(matrixInputs(service(), blob, 1, app.port))
    expectRefusedBeforeExport(
      second.main,
      /^The tunnel did not start: .*The service lists the token as active, so this server allows one session per credential: set input share to off, and each job provisions its own credential\.$/
    )
    expect(endpoints(service())).toEqual(['user-tokens-list'])
    expect((await second.end()).post.exitCode).toBe(0)
    expect(statusOf(service(), setup.main.outputs['tunnel-user'])).toBe('active')
    expect((await requestAsRunStep(first.main.outputs)).status).toBe(200)
    await first.end()
  }, 120_000)
})
