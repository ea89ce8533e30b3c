/**
 * A job: steps that share RUNNER_TEMP and see the variables earlier steps exported through
 * GITHUB_ENV and GITHUB_PATH. Post steps run in reverse order of their main steps at the end of
 * the job, with the inputs and secrets of their main step and the state it saved; with
 * `post-if: always()` a post step runs even when its main step failed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { runStep, type StepOptions, type StepResult } from './runner.js'

type Shared = Omit<StepOptions, 'step' | 'inputs' | 'state' | 'runnerTemp'>

export interface ActionUse {
  main: StepResult
  /** Runs this use's post step; the job's `end()` does so for every use not yet posted. */
  post(): Promise<StepResult>
}

export class Job {
  /** Variables exported by the steps so far; later steps get them in their environment. */
  readonly exported: Record<string, string> = {}
  private readonly addedPath: string[] = []
  private readonly pending: (() => Promise<StepResult>)[] = []
  /** The job's RUNNER_TEMP, shared by its steps; removed by `end()` or `discard()`. */
  readonly runnerTemp = mkdtempSync(join(tmpdir(), 'runner-job-'))

  constructor(private readonly shared: Shared = {}) {}

  private environment(extra?: Record<string, string>): Record<string, string> {
    const env = { ...this.shared.env, ...this.exported, ...extra }
    const basePath = env.PATH ?? process.env.PATH ?? ''
    if (this.addedPath.length > 0) env.PATH = [...this.addedPath, basePath].join(delimiter)
    return env
  }

  private async step(options: StepOptions): Promise<StepResult> {
    const result = await runStep({ ...options, runnerTemp: this.runnerTemp })
    Object.assign(this.exported, result.env)
    this.addedPath.unshift(...result.path.reverse())
    return result
  }

  /** A `uses:` step with these `with:` inputs (and optional step `env:`). */
  async uses(inputs: Record<string, string>, options: Partial<Shared> = {}): Promise<ActionUse> {
    const merged = { ...this.shared, ...options }
    const main = await this.step({
      ...merged,
      step: 'main',
      inputs,
      env: this.environment(options.env)
    })
    let done: Promise<StepResult> | undefined
    const post = () =>
      (done ??= this.step({
        ...merged,
        step: 'post',
        inputs,
        state: main.state,
        env: this.environment(options.env)
      }))
    this.pending.unshift(post)
    return { main, post }
  }

  /** Runs the outstanding post steps (last use first) and removes RUNNER_TEMP. */
  async end(): Promise<StepResult[]> {
    const results: StepResult[] = []
    try {
      for (const post of this.pending) results.push(await post())
    } finally {
      this.removeRunnerTemp()
    }
    return results
  }

  /**
   * Ends the job without running its outstanding post steps, and removes RUNNER_TEMP: for a test
   * that stops after main, which would otherwise leave the folder behind. Safe to call twice.
   */
  discard(): void {
    this.pending.length = 0
    this.removeRunnerTemp()
  }

  private removeRunnerTemp(): void {
    rmSync(this.runnerTemp, { recursive: true, force: true })
  }
}
