/**
 * Shared by the end-to-end suites: one local credential service per file, the action's inputs
 * for it, and the checks every case makes (what a user sees, and that no secret leaks).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Job } from '../../scripts/job.js'
import { hasSsh, startLocalApp, type SshClient } from '../../scripts/openssh.js'
import {
  ensureNode24,
  findSecretLeaks,
  type LeakCheck,
  type StepResult
} from '../../scripts/runner.js'
import {
  startCredentialService,
  type RunningService,
  type ServiceOptions
} from '../../service/server.js'

export const VARIABLES = ['TOKEN', 'USER', 'HOST', 'PORT'].map(v => `SVC_TUNNEL_${v}`)

/** Starts the service before the file's tests and stops it after; faults are reset per test. */
export function useService(options: ServiceOptions = {}): () => RunningService {
  let service: RunningService | undefined
  // On a fresh clone this installs Node 24 first (npm, several seconds): not inside a test's time.
  beforeAll(async () => {
    ensureNode24()
    service = await startCredentialService(options)
  }, 180_000)
  beforeEach(() => {
    service!.resetFaults()
    service!.clearRequests()
  })
  afterAll(() => service?.close())
  return () => service!
}

/** A `with:` block for the service; short network limits keep failing cases fast. */
export function inputsFor(
  service: RunningService,
  overrides: Record<string, string> = {}
): Record<string, string> {
  return {
    'api-key': service.seed.provisionKey,
    project: service.seed.project,
    'base-url': service.baseUrl,
    'timeout-seconds': '2',
    ...overrides
  }
}

/** The jobs runAction started in the current test, each discarded once the test is over. */
const jobsOfThisTest = new Set<Job>()

// Registered once for every file that imports these helpers: many tests stop after the main step,
// and their job's RUNNER_TEMP would otherwise stay in the system's temp folder.
afterEach(() => {
  for (const job of jobsOfThisTest) job.discard()
  jobsOfThisTest.clear()
})

/** Runs the bundled main step in a fresh job; `post()` runs its post step. */
export async function runAction(inputs: Record<string, string>, env: Record<string, string> = {}) {
  const job = new Job({ env, timeoutMs: 20_000 })
  jobsOfThisTest.add(job)
  const use = await job.uses(inputs)
  return { job, main: use.main, post: () => job.end().then(([post]) => post) }
}

export const annotations = (step: StepResult, name: 'error' | 'warning' | 'notice') =>
  step.commands.filter(c => c.name === name).map(c => c.message)

export function statusOf(service: RunningService, tunnelUser: string): string | undefined {
  return service.tokens().find(t => t.tunnel_user === tunnelUser)?.status
}

export const requestPaths = (service: RunningService) =>
  service.requests().map(r => r.path.replace('/functions/v1/', ''))

/** No secret anywhere in the raw output except its own add-mask line, registered in time. */
export function expectNoLeak(step: StepResult, check: LeakCheck): void {
  expect(findSecretLeaks(step, check)).toEqual([])
}

/** A main step that failed as a user sees it: one error, exit 1, nothing for later steps. */
export function expectFailedMain(step: StepResult, message: RegExp): void {
  expect(step.exitCode).toBe(1)
  expect(annotations(step, 'error')).toEqual([expect.stringMatching(message)])
  expect(step.env).toEqual({})
  expect(step.outputs).toEqual({})
  // No credential left for post: none was issued, or main revoked the one it refused.
  expect(step.state.credential ?? '').toBe('')
  expect(step.summary).toBe('')
}

/**
 * What the ssh-key suites share: the OpenSSH client (required, not skipped: these suites are the
 * proof, and OpenSSH is on every GitHub-hosted runner), a local app, a scratch folder, and the
 * ssh clients and jobs a test starts, all ended after the file.
 */
export function useSshFixture(prefix: string): {
  clients: SshClient[]
  jobs: Job[]
  app(): Awaited<ReturnType<typeof startLocalApp>>
  scratch(): string
} {
  const clients: SshClient[] = []
  const jobs: Job[] = []
  let app: Awaited<ReturnType<typeof startLocalApp>> | undefined
  let scratch = ''
  beforeAll(async () => {
    if (!hasSsh()) throw new Error('these tests need the OpenSSH client at /usr/bin/ssh')
    app = await startLocalApp('answer from your local app')
    scratch = mkdtempSync(join(tmpdir(), prefix))
  })
  afterAll(async () => {
    await Promise.all(clients.map(client => client.stop()))
    await Promise.all(jobs.map(job => job.end()))
    await app?.close()
    if (scratch) rmSync(scratch, { recursive: true, force: true })
  })
  return { clients, jobs, app: () => app!, scratch: () => scratch }
}
