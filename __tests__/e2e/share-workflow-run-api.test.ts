/**
 * The workflow of share-workflow.test.ts (setup, a matrix of three, a final job), with every step
 * run by github-action-ts-run-api instead of this project's runner emulation: a second reading of
 * action.yml, inputs, state, file and workflow commands. Same expectations.
 */
import { startLocalApp } from '../../scripts/openssh.js'
import { runApiJob } from '../helpers/run-api-job.js'
import { runSharedWorkflow } from '../helpers/shared-credential-workflow.js'
import { expectSharedWorkflow } from '../helpers/shared-workflow-expectations.js'
import { useWorkflowRuns } from '../helpers/workflow-run.js'
import { useService } from './helpers.js'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
const newRun = useWorkflowRuns(runApiJob, () => [service().seed.provisionKey])
const markers = ['answer from matrix job 0', 'answer from matrix job 1', 'answer from matrix job 2']
let apps: Awaited<ReturnType<typeof startLocalApp>>[] = []

beforeAll(async () => (apps = await Promise.all(markers.map(startLocalApp))))
afterAll(() => Promise.all(apps.map(app => app.close())))

it('setup shares one credential, three matrix jobs each reach their own app under their own name, the final job revokes it', async () => {
  const run = newRun({ repository: 'octo-org/octo-repo', runId: '7002' })
  const workflow = await runSharedWorkflow(
    run,
    service(),
    apps.map(app => app.port)
  )
  expectSharedWorkflow(workflow, service(), markers)
}, 240_000)
