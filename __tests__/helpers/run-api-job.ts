/**
 * The workflow's jobs under github-action-ts-run-api, a GitHub action runner written apart from
 * this project's emulation: its own reading of action.yml, inputs, file commands, state and
 * workflow commands. The bundled action runs on Node 24, as the runner runs `using: node24`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import {
  RunOptions,
  RunTarget,
  type AsyncRunTargetInterface,
  type RunResultInterface
} from 'github-action-ts-run-api'
import { ensureNode24, repoRoot } from '../../scripts/node24.js'
import type { ActionJob, ActionStep, JobSetting } from './workflow-run.js'

const actionYml = join(repoRoot, 'action.yml')

/**
 * The library spawns `node` from the test process's PATH, read when the step starts: Node 24
 * goes first for exactly that moment (the spawn happens before run() first awaits).
 */
function runOnNode24(
  target: AsyncRunTargetInterface,
  options: RunOptions
): Promise<RunResultInterface> {
  const path = process.env.PATH
  process.env.PATH = [dirname(ensureNode24()), path].join(delimiter)
  try {
    return target.run(options)
  } finally {
    process.env.PATH = path
  }
}

const lines = (text: string | undefined) => (text ?? '').split(/\r?\n/).filter(line => line !== '')

export function runApiJob({ env }: JobSetting): ActionJob {
  const runnerTemp = mkdtempSync(join(tmpdir(), 'run-api-job-'))
  const summaryFile = join(runnerTemp, '_step_summary')
  const base = () => {
    writeFileSync(summaryFile, '')
    return (
      RunOptions.create()
        .setEnv({ ...env, GITHUB_STEP_SUMMARY: summaryFile })
        // Its own context variables would otherwise be a random run id per step.
        .setGithubContext({ repository: env.GITHUB_REPOSITORY, runId: Number(env.GITHUB_RUN_ID) })
        .setTempDir(runnerTemp)
        .setTimeoutMs(60_000)
        .setOutputOptions({ printStdout: false, printStderr: false, printRunnerWarnings: false })
    )
  }
  const stepOf = (step: 'main' | 'post', result: RunResultInterface): ActionStep => ({
    step,
    exitCode: result.exitCode ?? null,
    outputs: result.commands.outputs as Record<string, string>,
    env: result.commands.exportedVars as Record<string, string>,
    state: result.commands.savedState as Record<string, string>,
    summary: readFileSync(summaryFile, 'utf8'),
    log: [...lines(result.stdout), ...lines(result.stderr)],
    masks: result.commands.secrets,
    errors: result.commands.errors,
    warnings: result.commands.warnings,
    notices: result.commands.notices
  })
  let main: { inputs: Record<string, string>; result: RunResultInterface } | undefined
  const discard = () => rmSync(runnerTemp, { recursive: true, force: true })
  return {
    async main(inputs) {
      const result = await runOnNode24(RunTarget.mainJs(actionYml), base().setInputs(inputs))
      main = { inputs, result }
      return stepOf('main', result)
    },
    async post() {
      if (!main) throw new Error('post before main')
      try {
        const options = base()
          .setInputs(main.inputs)
          .setState(main.result.commands.savedState)
          // Later steps of the job, post among them, see what main exported to GITHUB_ENV.
          .setEnv(main.result.commands.exportedVars)
        return stepOf('post', await runOnNode24(RunTarget.postJs(actionYml), options))
      } finally {
        discard()
      }
    },
    discard
  }
}
