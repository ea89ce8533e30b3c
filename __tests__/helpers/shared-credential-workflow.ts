/**
 * The workflow the docs show for one credential per run, as jobs of one WorkflowRun:
 *
 *   setup:   share: create, ttl-minutes      outputs: shared-credential (and token, which the
 *                                            runner must drop: it is masked)
 *   test:    needs setup; matrix of three;   share: use, shared-credential from setup,
 *            expose: web-${{ strategy.job-index }}=<its app>, protect: true; a `run:` step
 *            requests its own URL with the gate's header
 *   cleanup: needs [setup, test], if: always(); share: revoke
 *
 * Matrix jobs start together, as GitHub starts them, and all three tunnels are up at once.
 */
import type { RunningService } from '../../service/server.js'
import { curl } from './gate-clients.js'
import type { FinishedJob, WorkflowJob, WorkflowRun } from './workflow-run.js'

/** The `with:` every job of the workflow shares: the service and the project. */
export function workflowInputs(
  service: RunningService,
  extra: Record<string, string> = {}
): Record<string, string> {
  return {
    'api-key': service.seed.provisionKey,
    project: service.seed.project,
    'base-url': service.baseUrl,
    'timeout-seconds': '5',
    ...extra
  }
}

/** A matrix job's `with:` for index `index`, exposing its own app under its own name. */
export const matrixInputs = (
  service: RunningService,
  blob: string,
  index: number,
  appPort: number
): Record<string, string> =>
  workflowInputs(service, {
    share: 'use',
    'shared-credential': blob,
    'url-template': service.tunnel!.urlTemplate,
    expose: `web-${index}=${appPort}`,
    protect: 'true'
  })

/** A request to a matrix job's URL as its `run:` step sends it: curl -H "<protect-header>" <url>. */
export const requestAsRunStep = (outputs: Record<string, string>) =>
  curl(['-H', outputs['protect-header'], outputs.url])

export interface MatrixJobRun {
  job: FinishedJob
  /** What its `run:` step got from its own URL: `curl -H "<protect-header>" <url>`. */
  answer: { status: number; body: string }
  /** The forwards the tunnel server held while every matrix job was up. */
  forwardsWhileUp: Array<{ user: string; name: string; host: string }>
}

export interface SharedWorkflowRun {
  setup: FinishedJob
  matrix: MatrixJobRun[]
  cleanup: FinishedJob
  /** The token's status at the stand-in after each phase. */
  statusAfterSetup: string | undefined
  statusAfterMatrix: string | undefined
  /** Tunnel sessions still open once every matrix job ended (given a few seconds to close). */
  sessionsAfterMatrix: number
}

const statusOf = (service: RunningService, user: string) =>
  service.tokens().find(token => token.tunnel_user === user)?.status

/** The server sees a client's close a moment after the post step ended it. */
async function openSessionsAfterClose(service: RunningService): Promise<number> {
  for (let waited = 0; waited < 5_000; waited += 100) {
    if (service.tunnel!.sessions().length === 0) return 0
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  return service.tunnel!.sessions().length
}

/**
 * The setup job, main and post: `share: create`. Its job outputs are the sealed credential and,
 * declared to show the runner's rule at work, the token (which the runner must drop).
 */
export async function runSetupJob(
  run: WorkflowRun,
  service: RunningService,
  extra: Record<string, string> = {}
): Promise<FinishedJob> {
  const job = await run.job(
    workflowInputs(service, { share: 'create', 'ttl-minutes': '30', ...extra }),
    { outputs: { 'shared-credential': 'shared-credential', token: 'token' } }
  )
  return job.end()
}

/** The final job, main and post: `share: revoke` with the setup job's output. */
export async function runCleanupJob(
  run: WorkflowRun,
  service: RunningService,
  blob: string,
  extra: Record<string, string> = {}
): Promise<FinishedJob> {
  const inputs = workflowInputs(service, { share: 'revoke', 'shared-credential': blob, ...extra })
  return (await run.job(inputs)).end()
}

/** Runs setup, the matrix (one job per app port) and cleanup; asserts nothing itself. */
export async function runSharedWorkflow(
  run: WorkflowRun,
  service: RunningService,
  appPorts: number[]
): Promise<SharedWorkflowRun> {
  const setup = await runSetupJob(run, service)
  const user = setup.main.outputs['tunnel-user']
  const statusAfterSetup = statusOf(service, user)
  const blob = setup.outputs['shared-credential'] ?? ''

  const started: WorkflowJob[] = await Promise.all(
    appPorts.map((port, index) =>
      run.job(matrixInputs(service, blob, index, port), {
        outputs: { url: 'url', 'tunnel-user': 'tunnel-user', 'protect-secret': 'protect-secret' }
      })
    )
  )
  const forwardsWhileUp = service.tunnel!.forwards()
  const answers = await Promise.all(
    started.map(({ main }) =>
      main.exitCode === 0
        ? requestAsRunStep(main.outputs)
        : { status: 0, body: `main failed: ${main.errors.join(' ')}` }
    )
  )
  const finished = await Promise.all(started.map(job => job.end()))
  const statusAfterMatrix = statusOf(service, user)
  const sessionsAfterMatrix = await openSessionsAfterClose(service)

  const cleanup = await runCleanupJob(run, service, blob)
  return {
    setup,
    matrix: finished.map((job, i) => ({ job, answer: answers[i], forwardsWhileUp })),
    cleanup,
    statusAfterSetup,
    statusAfterMatrix,
    sessionsAfterMatrix
  }
}
