/**
 * Runs one step of a node action the way the GitHub runner does: `node <runs.main|post>` in its
 * own process, inputs as INPUT_* variables (action.yml defaults filled in), fresh file-command
 * files, saved state as STATE_* variables for post, then reads back what the step wrote and
 * the workflow commands it printed. Used by the end-to-end tests, `npm run demo` and the bench.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { ensureNode24, repoRoot } from './node24.js'
import { inputVariableName, readActionDefinition } from './runner/action-yml.js'
import { createFileCommandFiles, parseFileCommand, parsePathFile } from './runner/file-commands.js'
import type { LogLine } from './runner/log.js'
import { Masker } from './runner/masker.js'
import {
  createCommandReader,
  isValidStopToken,
  type WorkflowCommand
} from './runner/workflow-commands.js'

export { ensureNode24, repoRoot } from './node24.js'
export { renderLog, type LogLine } from './runner/log.js'
export { renderSummary } from './runner/summary.js'
export { Masker } from './runner/masker.js'
export { assertNoSecretLeak, findSecretLeaks, type LeakCheck } from './runner/leaks.js'
export type { WorkflowCommand } from './runner/workflow-commands.js'

export interface StepOptions {
  step: 'main' | 'post'
  /** The step's `with:` values. Names are matched case-insensitively, as the runner does. */
  inputs?: Record<string, string>
  /** For post: the state main saved (the `state` of main's result). */
  state?: Record<string, string>
  /** Job and step `env:`; the only variables besides PATH and HOME the step inherits. */
  env?: Record<string, string>
  /** Values the runner masks from the start, as it does for `${{ secrets.* }}`. */
  secrets?: string[]
  /** Node binary; default: Node 24, the runner's runtime for `using: node24`. */
  node?: string
  /** Directory holding action.yml; default: this repository. */
  actionDir?: string
  /** GITHUB_WORKSPACE and working directory; default: a fresh temp directory. */
  cwd?: string
  /** RUNNER_TEMP, shared by the steps of one job; default: a fresh temp directory. */
  runnerTemp?: string
  /** Kill the step after this long (SIGKILL), like `timeout-minutes`. Default 60 s. */
  timeoutMs?: number
}

export interface StepResult {
  step: 'main' | 'post'
  /** Null when the process was killed by a signal (see `timedOut`). */
  exitCode: number | null
  timedOut: boolean
  stdout: string
  stderr: string
  /** Both streams' lines in the order they arrived, each with the command it holds. */
  lines: LogLine[]
  commands: WorkflowCommand[]
  /** What the step wrote to GITHUB_ENV, GITHUB_OUTPUT, GITHUB_STATE, GITHUB_PATH. */
  env: Record<string, string>
  outputs: Record<string, string>
  state: Record<string, string>
  path: string[]
  summary: string
  /** Every value masked during the step: preset secrets, then add-mask values in order. */
  masks: string[]
  /** Runner-side problems: unreadable file commands, unexpected inputs. */
  runnerErrors: string[]
  runnerWarnings: string[]
  /** Whether RUNNER_DEBUG=1 was set (debug lines are then shown in the log). */
  debug: boolean
  /** What the runner would show for this step as its conclusion. */
  conclusion: 'success' | 'failure'
  durationMs: number
  /** Kept for renderLog: masks known before the step began. */
  presetMasks: string[]
}

function stepInputs(actionDir: string, given: Record<string, string>, warnings: string[]) {
  const definition = readActionDefinition(actionDir)
  const values = new Map<string, string>()
  for (const [name, spec] of definition.inputs) {
    if (spec.default !== undefined) values.set(name, spec.default)
  }
  const unexpected: string[] = []
  for (const [name, value] of Object.entries(given)) {
    if (!definition.inputs.has(name.toLowerCase())) unexpected.push(name)
    values.set(name.toLowerCase(), value)
  }
  if (unexpected.length > 0) {
    const valid = [...definition.inputs.keys()].join("', '")
    warnings.push(`Unexpected input(s) '${unexpected.join("', '")}', valid inputs are ['${valid}']`)
  }
  const env: Record<string, string> = {}
  for (const [name, value] of values) env[inputVariableName(name)] = value
  return { env, definition }
}

function runnerVariables(workspace: string, runnerTemp: string): Record<string, string> {
  const eventPath = join(runnerTemp, '_github_workflow', 'event.json')
  mkdirSync(join(runnerTemp, '_github_workflow'), { recursive: true })
  writeFileSync(eventPath, '{}\n')
  return {
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_ACTION: '__self',
    GITHUB_ACTION_REPOSITORY: '',
    GITHUB_ACTION_REF: '',
    GITHUB_WORKSPACE: workspace,
    GITHUB_REPOSITORY: 'octo-org/octo-repo',
    GITHUB_REPOSITORY_OWNER: 'octo-org',
    GITHUB_WORKFLOW: 'ci',
    GITHUB_JOB: 'e2e',
    GITHUB_RUN_ID: '1',
    GITHUB_RUN_NUMBER: '1',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_EVENT_NAME: 'push',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REF: 'refs/heads/main',
    GITHUB_REF_NAME: 'main',
    GITHUB_SHA: '0000000000000000000000000000000000000000',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: 'https://api.github.com',
    GITHUB_GRAPHQL_URL: 'https://api.github.com/graphql',
    RUNNER_OS: 'Linux',
    RUNNER_ARCH: 'X64',
    RUNNER_NAME: 'local-emulation',
    RUNNER_ENVIRONMENT: 'github-hosted',
    RUNNER_TEMP: runnerTemp,
    RUNNER_TOOL_CACHE: join(runnerTemp, '_tool')
  }
}

export async function runStep(options: StepOptions): Promise<StepResult> {
  const started = Date.now()
  const actionDir = resolve(options.actionDir ?? repoRoot)
  const runnerWarnings: string[] = []
  const runnerErrors: string[] = []
  const { env: inputEnv, definition } = stepInputs(actionDir, options.inputs ?? {}, runnerWarnings)
  const entry = definition.entries[options.step]
  if (!entry) throw new Error(`action.yml has no runs.${options.step}`)

  const scratch = mkdtempSync(join(tmpdir(), 'runner-step-'))
  const workspace = options.cwd ?? join(scratch, 'workspace')
  const runnerTemp = options.runnerTemp ?? join(scratch, 'temp')
  const commandsDir = join(scratch, '_runner_file_commands')
  for (const dir of [workspace, runnerTemp, commandsDir]) mkdirSync(dir, { recursive: true })
  const files = createFileCommandFiles(commandsDir)

  const stateEnv: Record<string, string> = {}
  for (const [name, value] of Object.entries(options.state ?? {})) stateEnv[`STATE_${name}`] = value
  const inherited: Record<string, string> = {}
  for (const name of ['PATH', 'HOME']) {
    if (process.env[name] !== undefined) inherited[name] = process.env[name]
  }
  const env: Record<string, string> = {
    ...inherited,
    ...runnerVariables(workspace, runnerTemp),
    ...options.env,
    ...inputEnv,
    ...(options.step === 'post' ? stateEnv : {}),
    ...files
  }
  const debug = env.RUNNER_DEBUG === '1'

  const node = options.node ?? ensureNode24()
  const run = await spawnStep(
    node,
    join(actionDir, entry),
    workspace,
    env,
    options.timeoutMs ?? 60_000
  )

  const masker = new Masker()
  for (const secret of options.secrets ?? []) masker.add(secret)
  const commandOutputs: Record<string, string> = {}
  const commandState: Record<string, string> = {}
  const commands: WorkflowCommand[] = []
  for (const line of run.lines) {
    if (!line.command) continue
    commands.push(line.command)
    const { name, properties, message } = line.command
    if (name === 'add-mask') masker.add(message)
    // Deprecated forms still work on the runner (with a warning); the files win over them.
    if (name === 'set-output' && properties.name) commandOutputs[properties.name] = message
    if (name === 'save-state' && properties.name) commandState[properties.name] = message
    if (name === 'set-env' || name === 'add-path') {
      runnerErrors.push(`The \`${name}\` command is disabled.`)
    }
    if (name === 'stop-commands' && !isValidStopToken(message)) {
      runnerErrors.push(`Invalid stop-commands token '${message}': commands were not stopped.`)
    }
  }

  const read = (label: string, file: string): Record<string, string> => {
    try {
      return parseFileCommand(readFileSync(file, 'utf8'))
    } catch (error) {
      runnerErrors.push(`Unable to process file command '${label}' successfully: ${error}`)
      return {}
    }
  }
  const result: StepResult = {
    step: options.step,
    exitCode: run.exitCode,
    timedOut: run.timedOut,
    stdout: run.stdout,
    stderr: run.stderr,
    lines: run.lines,
    commands,
    env: read('env', files.GITHUB_ENV),
    outputs: { ...commandOutputs, ...read('output', files.GITHUB_OUTPUT) },
    state: { ...commandState, ...read('save-state', files.GITHUB_STATE) },
    path: parsePathFile(readFileSync(files.GITHUB_PATH, 'utf8')),
    summary: readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8'),
    masks: masker.values,
    runnerErrors,
    runnerWarnings,
    debug,
    conclusion: 'success',
    durationMs: 0,
    presetMasks: [...(options.secrets ?? [])]
  }
  result.conclusion = run.exitCode === 0 && runnerErrors.length === 0 ? 'success' : 'failure'
  rmSync(scratch, { recursive: true, force: true })
  result.durationMs = Date.now() - started
  return result
}

interface ProcessRun {
  exitCode: number | null
  timedOut: boolean
  stdout: string
  stderr: string
  lines: LogLine[]
}

function spawnStep(
  node: string,
  script: string,
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number
): Promise<ProcessRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(node, [script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    const lines: LogLine[] = []
    const chunks = { stdout: '', stderr: '' }
    const pending = { stdout: '', stderr: '' }
    // Both streams feed one command reader, as the runner processes each line as it arrives.
    const readCommand = createCommandReader()
    const take = (stream: 'stdout' | 'stderr', text: string, flush: boolean) => {
      chunks[stream] += text
      const parts = (pending[stream] + text).split('\n')
      pending[stream] = flush ? '' : parts.pop()!
      for (const raw of parts) {
        if (flush && raw === '' && parts.length === 1) continue
        const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
        lines.push({ stream, text: line, command: readCommand(line) })
      }
    }
    child.stdout.setEncoding('utf8').on('data', (t: string) => take('stdout', t, false))
    child.stderr.setEncoding('utf8').on('data', (t: string) => take('stderr', t, false))
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, timeoutMs)
    child.on('error', error => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', code => {
      clearTimeout(timer)
      take('stdout', '', true)
      take('stderr', '', true)
      resolvePromise({ exitCode: code, timedOut, lines, ...chunks })
    })
  })
}
