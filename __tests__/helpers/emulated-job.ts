/**
 * The workflow's jobs on the runner emulation (scripts/job.ts): the bundled action on Node 24,
 * inputs as INPUT_* variables, file commands read back, post with main's state.
 */
import { Job } from '../../scripts/job.js'
import type { StepResult } from '../../scripts/runner.js'
import type { ActionJob, ActionStep, JobSetting } from './workflow-run.js'

const messages = (step: StepResult, name: string) =>
  step.commands.filter(command => command.name === name).map(command => command.message)

function actionStep(step: StepResult): ActionStep {
  return {
    step: step.step,
    exitCode: step.exitCode,
    outputs: step.outputs,
    env: step.env,
    state: step.state,
    summary: step.summary,
    log: step.lines.map(line => line.text),
    masks: messages(step, 'add-mask'),
    errors: messages(step, 'error'),
    warnings: messages(step, 'warning'),
    notices: messages(step, 'notice')
  }
}

export function emulatedJob({ env, secrets }: JobSetting): ActionJob {
  // Generous: three jobs and their tunnel processes share two cores with other test runs.
  const job = new Job({ env, secrets, timeoutMs: 60_000 })
  let post: (() => Promise<StepResult>) | undefined
  return {
    async main(inputs) {
      const use = await job.uses(inputs)
      post = use.post
      return actionStep(use.main)
    },
    async post() {
      if (!post) throw new Error('post before main')
      try {
        return actionStep(await post())
      } finally {
        job.discard()
      }
    },
    discard: () => job.discard()
  }
}
