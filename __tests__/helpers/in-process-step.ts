/**
 * Runs a step function in this process with the runner's interface around it: INPUT_* variables
 * (action.yml defaults filled in), STATE_* variables, the GITHUB_* files, and stdout captured
 * line by line. What the step wrote is read back with the same parsers the end-to-end runner uses.
 */
import { jest } from '@jest/globals'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { inputVariableName, readActionDefinition } from '../../scripts/runner/action-yml.js'
import { createFileCommandFiles, parseFileCommand } from '../../scripts/runner/file-commands.js'
import {
  parseWorkflowCommand,
  type WorkflowCommand
} from '../../scripts/runner/workflow-commands.js'

const repoRoot = fileURLToPath(new URL('../..', import.meta.url))
const action = readActionDefinition(repoRoot)

export interface StepOutcome {
  /** Every line written to stdout, in order. */
  lines: string[]
  commands: WorkflowCommand[]
  errors: string[]
  warnings: string[]
  masks: string[]
  env: Record<string, string>
  outputs: Record<string, string>
  state: Record<string, string>
  summary: string
  failed: boolean
}

export async function runInProcess(
  step: () => Promise<void>,
  inputs: Record<string, string>,
  options: { state?: Record<string, string>; env?: Record<string, string> } = {}
): Promise<StepOutcome> {
  const savedEnv = { ...process.env }
  const dir = mkdtempSync(join(tmpdir(), 'step-'))
  const files = createFileCommandFiles(dir)
  for (const name of Object.keys(process.env)) {
    if (name.startsWith('INPUT_') || name.startsWith('STATE_') || name === 'RUNNER_DEBUG') {
      delete process.env[name]
    }
  }
  for (const [name, spec] of action.inputs) {
    const value = inputs[name] ?? spec.default
    if (value !== undefined) process.env[inputVariableName(name)] = value
  }
  for (const [name, value] of Object.entries(options.state ?? {}))
    process.env[`STATE_${name}`] = value
  Object.assign(process.env, files, options.env)

  let stdout = ''
  const write = jest.spyOn(process.stdout, 'write').mockImplementation(chunk => {
    stdout += String(chunk)
    return true
  })
  // Loaded late: a test file must load nock before anything imports @actions/http-client.
  const core = await import('@actions/core')
  // core.summary caches the summary file's path of the first step that wrote one.
  ;(core.summary as unknown as { _filePath?: string })._filePath = undefined
  try {
    await step()
  } finally {
    write.mockRestore()
  }
  const failed = process.exitCode === 1
  process.exitCode = undefined
  process.env = savedEnv

  const lines = stdout.split(/\r?\n/).filter(line => line !== '')
  const commands = lines.map(parseWorkflowCommand).filter((c): c is WorkflowCommand => !!c)
  const messages = (name: string): string[] =>
    commands.filter(c => c.name === name).map(c => c.message)
  const read = (file: string): string => readFileSync(file, 'utf8')
  const outcome: StepOutcome = {
    lines,
    commands,
    errors: messages('error'),
    warnings: messages('warning'),
    masks: messages('add-mask'),
    env: parseFileCommand(read(files.GITHUB_ENV)),
    outputs: parseFileCommand(read(files.GITHUB_OUTPUT)),
    state: parseFileCommand(read(files.GITHUB_STATE)),
    summary: read(files.GITHUB_STEP_SUMMARY),
    failed
  }
  rmSync(dir, { recursive: true, force: true })
  return outcome
}

/** Lines other than the `::add-mask::` that registers it, which contain the secret. */
export function linesLeaking(outcome: StepOutcome, secret: string): string[] {
  return outcome.lines.filter(line => line.includes(secret) && line !== `::add-mask::${secret}`)
}

/** A clock whose sleeps are recorded and return at once. */
export function fakeClock(nowIso = '2026-11-23T10:00:00Z') {
  const sleeps: number[] = []
  return {
    sleeps,
    now: () => Date.parse(nowIso),
    sleep: async (ms: number) => {
      sleeps.push(ms)
    },
    random: () => 0.5
  }
}

export const API_KEY = `sk_${'0123456789abcdef'.repeat(4)}`
export const BASE_URL = 'https://credentials.example.test/functions/v1'
