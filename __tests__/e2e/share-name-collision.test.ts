/**
 * Two matrix jobs of one run asking for the same name under `share: use`, through the bundled
 * action under the runner emulation: they share one tunnel user, so the tunnel server holds the
 * name for the first and refuses it to the second, saying so on its console. The second fails
 * with one error that says the name is taken and what to do, exports nothing and revokes
 * nothing; the first serves on.
 */
import { startLocalApp } from '../../scripts/openssh.js'
import { emulatedJob } from '../helpers/emulated-job.js'
import { expectRefusedBeforeExport } from '../helpers/refused-step.js'
import {
  matrixInputs,
  requestAsRunStep,
  runSetupJob
} from '../helpers/shared-credential-workflow.js'
import { useWorkflowRuns } from '../helpers/workflow-run.js'
import { statusOf, useService } from './helpers.js'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
const newRun = useWorkflowRuns(emulatedJob, () => [service().seed.provisionKey])
let app: Awaited<ReturnType<typeof startLocalApp>>
beforeAll(async () => (app = await startLocalApp('answer from the first matrix job')))
afterAll(() => app?.close())

it('the second job asking for a name the first holds is told the name is taken; the first serves on', async () => {
  const run = newRun({ repository: 'octo-org/octo-repo', runId: '7202' })
  const setup = await runSetupJob(run, service())
  const blob = setup.outputs['shared-credential']
  const first = await run.job(matrixInputs(service(), blob, 0, app.port))
  expect(first.main.exitCode).toBe(0)

  const second = await run.job(matrixInputs(service(), blob, 0, app.port))
  expectRefusedBeforeExport(
    second.main,
    'The tunnel did not start: the name web-0 is taken on the tunnel server, by another job ' +
      'sharing this credential or by another tunnel. Give each job its own names in input ' +
      'expose, e.g. web-${{ strategy.job-index }} on GitHub or web-{index} with the GitLab component.'
  )
  expect((await second.end()).post.exitCode).toBe(0)

  // The refused job revoked nothing: the first job's tunnel still reaches its app.
  expect(statusOf(service(), setup.main.outputs['tunnel-user'])).toBe('active')
  expect(await requestAsRunStep(first.main.outputs)).toEqual({
    status: 200,
    body: 'answer from the first matrix job (GET /)\n'
  })
  await first.end()
}, 120_000)
