/**
 * One credential per run (issue 28), as a workflow of the bundled action under the runner
 * emulation: a setup job shares the credential, three matrix jobs open it and each expose their
 * own app under their own name, and a final job revokes it. The expectations are in
 * helpers/shared-workflow-expectations.ts; share-workflow-run-api.test.ts runs the same workflow
 * under an independent GitHub client.
 */
import { startLocalApp } from '../../scripts/openssh.js'
import { emulatedJob } from '../helpers/emulated-job.js'
import { runSharedWorkflow } from '../helpers/shared-credential-workflow.js'
import { expectSharedWorkflow } from '../helpers/shared-workflow-expectations.js'
import { useWorkflowRuns } from '../helpers/workflow-run.js'
import { useService } from './helpers.js'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
const newRun = useWorkflowRuns(emulatedJob, () => [service().seed.provisionKey])
const markers = ['answer from matrix job 0', 'answer from matrix job 1', 'answer from matrix job 2']
let apps: Awaited<ReturnType<typeof startLocalApp>>[] = []

beforeAll(async () => (apps = await Promise.all(markers.map(startLocalApp))))
afterAll(() => Promise.all(apps.map(app => app.close())))

it('setup shares one credential, three matrix jobs each reach their own app under their own name, the final job revokes it', async () => {
  const run = newRun({ repository: 'octo-org/octo-repo', runId: '7001' })
  const workflow = await runSharedWorkflow(
    run,
    service(),
    apps.map(app => app.port)
  )
  expectSharedWorkflow(workflow, service(), markers)
}, 240_000)
