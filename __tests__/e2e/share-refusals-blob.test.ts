/**
 * `share: use` refuses a shared credential that is not this run's to open, through the bundled
 * action under the runner emulation: changed after sealing, sealed for another run or another
 * repository, or expired. Each is refused with one error that names the cause, before anything
 * is exported or sent to the service, and the refused job's post leaves the run's credential
 * alone.
 */
import { emulatedJob } from '../helpers/emulated-job.js'
import { expectRefusedBeforeExport } from '../helpers/refused-step.js'
import { runSetupJob, workflowInputs } from '../helpers/shared-credential-workflow.js'
import { useWorkflowRuns, type FinishedJob, type WorkflowRun } from '../helpers/workflow-run.js'
import { statusOf, useService } from './helpers.js'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
const REPOSITORY = 'octo-org/octo-repo'
const startRun = useWorkflowRuns(emulatedJob, () => [service().seed.provisionKey])
const newRun = (runId: string, repository = REPOSITORY) => startRun({ repository, runId })
/** The setup job of run 7101, shared by every case. */
let setup: FinishedJob

beforeAll(async () => {
  setup = await runSetupJob(newRun('7101'), service())
  expect(setup.outputs['shared-credential']).toMatch(/^ptc1\./)
}, 120_000)

/** A matrix job of `run` opening `blob`: main and post, and what it asked of the service. */
async function useIn(run: WorkflowRun, blob: string) {
  service().clearRequests()
  const job = await (
    await run.job(workflowInputs(service(), { share: 'use', 'shared-credential': blob }))
  ).end()
  return { job, requests: service().requests() }
}

/** The blob's parts: `ptc1`, binding, salt, iv, ciphertext and tag. */
const partsOf = (blob: string) => blob.split('.')
/** One base64url character of `part` changed at `index`. */
const flipped = (part: string, index: number) =>
  part.slice(0, index) + (part[index] === 'A' ? 'B' : 'A') + part.slice(index + 1)

function expectCredentialUntouched(): void {
  expect(statusOf(service(), setup.main.outputs['tunnel-user'])).toBe('active')
}

describe('share: use refuses', () => {
  it('a credential changed after it was sealed (one character of its ciphertext)', async () => {
    const parts = partsOf(setup.outputs['shared-credential'])
    parts[4] = flipped(parts[4], Math.floor(parts[4].length / 2))
    const { job, requests } = await useIn(newRun('7101'), parts.join('.'))
    expectRefusedBeforeExport(
      job.main,
      'The shared credential does not open with this API key: it was changed after it was sealed'
    )
    expect(requests).toEqual([])
    expect(job.post.exitCode).toBe(0)
    expectCredentialUntouched()
  }, 60_000)

  it('a credential whose clear binding was rewritten to name another run: it then fails as tampered', async () => {
    const parts = partsOf(setup.outputs['shared-credential'])
    const binding = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'))
    parts[1] = Buffer.from(JSON.stringify({ ...binding, run: '7199' })).toString('base64url')
    const { job, requests } = await useIn(newRun('7199'), parts.join('.'))
    expectRefusedBeforeExport(job.main, 'it was changed after it was sealed')
    expect(requests).toEqual([])
    expectCredentialUntouched()
  }, 60_000)

  it('a credential sealed for another run of the same repository', async () => {
    const { job, requests } = await useIn(newRun('7102'), setup.outputs['shared-credential'])
    expectRefusedBeforeExport(
      job.main,
      `The shared credential was sealed for another run, not run 7102 of ${REPOSITORY}.`
    )
    expect(requests).toEqual([])
    expect(job.post.exitCode).toBe(0)
    expectCredentialUntouched()
  }, 60_000)

  it('a credential sealed for another repository, in a run with the same id', async () => {
    const other = 'octo-org/other-repo'
    const { job, requests } = await useIn(newRun('7101', other), setup.outputs['shared-credential'])
    expectRefusedBeforeExport(
      job.main,
      `The shared credential was sealed for another repository, not ${other}.`
    )
    expect(requests).toEqual([])
    expectCredentialUntouched()
  }, 60_000)

  it('a credential that expired: the service had answered with an expiry a few seconds ahead', async () => {
    const run = newRun('7103')
    const expiresAt = new Date(Date.now() + 3_000)
    service().injectFault({
      kind: 'hostile',
      endpoint: 'credential-provision',
      override: { expires_at: expiresAt.toISOString() }
    })
    const expiring = await runSetupJob(run, service())
    expect(expiring.main.outputs['expires-at']).toBe(expiresAt.toISOString())
    await new Promise(resolve => setTimeout(resolve, expiresAt.getTime() - Date.now() + 200))
    const { job, requests } = await useIn(run, expiring.outputs['shared-credential'])
    expectRefusedBeforeExport(
      job.main,
      `The shared credential expired at ${expiresAt.toISOString()}: the run outlived input ttl-minutes.`
    )
    expect(requests).toEqual([])
  }, 60_000)
})
