/**
 * One workflow run of jobs that each use this action once, as GitHub runs them: every job sees
 * the run's GITHUB_REPOSITORY and GITHUB_RUN_ID, has its own RUNNER_TEMP, and the workflow's
 * secrets masked from its first line. A job's post step runs when the job ends (`post-if:
 * always()`), and its `outputs:` then reach the jobs that need it under the runner's rule: an
 * output holding a value masked in the job is dropped (scripts/runner/job-outputs.ts).
 *
 * The steps themselves are run by a driver: the runner emulation (emulated-job.ts) or an
 * independent GitHub client (run-api-job.ts), so one workflow is checked by both.
 */
import { jobOutputs } from '../../scripts/runner/job-outputs.js'

/** One step of the action as the driver saw it; the same shape from every driver. */
export interface ActionStep {
  step: 'main' | 'post'
  exitCode: number | null
  outputs: Record<string, string>
  /** What the step wrote to GITHUB_ENV. */
  env: Record<string, string>
  state: Record<string, string>
  summary: string
  /** stdout and stderr as the runner received them, line by line, before any masking. */
  log: string[]
  /** Every value registered with add-mask during the step. */
  masks: string[]
  errors: string[]
  warnings: string[]
  notices: string[]
}

/** A job whose one `uses:` step is this action; `main` once, then `post` once. */
export interface ActionJob {
  main(inputs: Record<string, string>): Promise<ActionStep>
  /** The post step with main's inputs and state; also ends the job and removes RUNNER_TEMP. */
  post(): Promise<ActionStep>
  /** Ends the job without a post step (a job that never ran main). */
  discard(): void
}

export interface JobSetting {
  /** The job's `env:`: the run's identity and anything else the test sets. */
  env: Record<string, string>
  /** Workflow secrets the job references: masked by the runner from the start. */
  secrets: string[]
}

export type JobDriver = (setting: JobSetting) => ActionJob

export interface RunIdentity {
  repository: string
  runId: string
}

export interface FinishedJob {
  main: ActionStep
  post: ActionStep
  /** `needs.<job>.outputs` for later jobs: the declared outputs the runner kept. */
  outputs: Record<string, string>
  /** The runner's warnings when the job ended (dropped outputs). */
  runnerWarnings: string[]
}

/** A started job: main has run; the test acts as its later `run:` steps, then ends it. */
export class WorkflowJob {
  private finished?: Promise<FinishedJob>

  constructor(
    private readonly job: ActionJob,
    readonly main: ActionStep,
    private readonly declared: Record<string, string>,
    private readonly secrets: string[]
  ) {}

  /** Runs post, then evaluates the job's outputs. Safe to call twice. */
  end(): Promise<FinishedJob> {
    this.finished ??= this.job.post().then(post => {
      const declared: Record<string, string> = {}
      for (const [name, stepOutput] of Object.entries(this.declared)) {
        declared[name] = this.main.outputs[stepOutput] ?? ''
      }
      const masks = [...this.secrets, ...this.main.masks, ...post.masks]
      const { outputs, warnings } = jobOutputs(declared, masks)
      return { main: this.main, post, outputs, runnerWarnings: warnings }
    })
    return this.finished
  }
}

export class WorkflowRun {
  private readonly started: WorkflowJob[] = []

  constructor(
    private readonly driver: JobDriver,
    readonly identity: RunIdentity,
    private readonly secrets: string[] = []
  ) {}

  /**
   * Starts a job and runs its step's main. `outputs` declares the job's outputs, each the name of
   * a step output (`outputs: { x: ${{ steps.s.outputs.y }} }` is `{ x: 'y' }`).
   */
  async job(
    inputs: Record<string, string>,
    options: { outputs?: Record<string, string>; env?: Record<string, string> } = {}
  ): Promise<WorkflowJob> {
    const env = {
      ...options.env,
      GITHUB_REPOSITORY: this.identity.repository,
      GITHUB_REPOSITORY_OWNER: this.identity.repository.split('/')[0],
      GITHUB_RUN_ID: this.identity.runId
    }
    const job = this.driver({ env, secrets: this.secrets })
    let main: ActionStep
    try {
      main = await job.main(inputs)
    } catch (error) {
      job.discard()
      throw error
    }
    const started = new WorkflowJob(job, main, options.outputs ?? {}, this.secrets)
    this.started.push(started)
    return started
  }

  /** Ends every job still running (their post steps stop their tunnels): for afterEach. */
  async endAll(): Promise<void> {
    await Promise.allSettled(this.started.map(job => job.end()))
  }
}

/**
 * For a test file: `newRun(identity)` starts a run with the secrets `secrets()` names, and every
 * job a test left running is ended after it (post steps stop their tunnels).
 */
export function useWorkflowRuns(
  driver: JobDriver,
  secrets: () => string[]
): (identity: RunIdentity) => WorkflowRun {
  const runs: WorkflowRun[] = []
  afterEach(async () => {
    await Promise.all(runs.map(run => run.endAll()))
    runs.length = 0
  })
  return identity => {
    const run = new WorkflowRun(driver, identity, secrets())
    runs.push(run)
    return run
  }
}
