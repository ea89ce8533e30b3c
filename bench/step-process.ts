/**
 * One `node` process as the runner starts a step: INPUT_* (with action.yml's defaults), the
 * runner's variables, fresh file-command files, saved state as STATE_*, and the benchmark's
 * certificate as NODE_EXTRA_CA_CERTS. The clock runs from just before spawn to the child's exit,
 * so preparing the files and reading them back is not counted.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { repoRoot } from '../scripts/runner.js'
import { inputVariableName, readActionDefinition } from '../scripts/runner/action-yml.js'
import { createFileCommandFiles } from '../scripts/runner/file-commands.js'

const definition = readActionDefinition(repoRoot)
export const actionEntry = join(repoRoot, definition.entries.main)

export interface StepRun {
  ms: number
  exitCode: number | null
  stdout: string
  /** What the process wrote to GITHUB_ENV. */
  env: string
}

export interface StepLaunch {
  node: string
  script: string
  caFile: string
  inputs: Record<string, string>
  state?: Record<string, string>
  /** A file for `node --require` before the script (e.g. bench/loaded-files.cjs). */
  preload?: string
  /** Variables on top of the runner's. */
  env?: Record<string, string>
}

function stepEnvironment(dir: string, launch: StepLaunch) {
  const workspace = join(dir, 'workspace')
  const temp = join(dir, 'temp')
  mkdirSync(workspace)
  mkdirSync(temp)
  const files = createFileCommandFiles(dir)
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: workspace,
    RUNNER_TEMP: temp,
    RUNNER_OS: 'Linux',
    NODE_EXTRA_CA_CERTS: launch.caFile,
    ...files,
    ...launch.env
  }
  for (const [name, spec] of definition.inputs) {
    if (spec.default !== undefined) env[inputVariableName(name)] = spec.default
  }
  for (const [name, value] of Object.entries(launch.inputs)) env[inputVariableName(name)] = value
  for (const [name, value] of Object.entries(launch.state ?? {})) env[`STATE_${name}`] = value
  return { env, workspace, files }
}

export async function timeStep(launch: StepLaunch): Promise<StepRun> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-step-'))
  try {
    const { env, workspace, files } = stepEnvironment(dir, launch)
    let stdout = ''
    const started = performance.now()
    const preload = launch.preload === undefined ? [] : ['--require', launch.preload]
    const child = spawn(launch.node, [...preload, launch.script], {
      cwd: workspace,
      env,
      stdio: ['ignore', 'pipe', 'pipe']
    })
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text))
    child.stderr.resume()
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject)
      child.on('exit', code => resolve(code))
    })
    const ms = performance.now() - started
    return { ms, exitCode, stdout, env: readFileSync(files.GITHUB_ENV, 'utf8') }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export function expectExported(run: StepRun, what: string): void {
  const names = run.env.match(/^SVC_TUNNEL_(TOKEN|USER|HOST|PORT)\b/gm) ?? []
  if (run.exitCode !== 0 || names.length !== 4) {
    throw new Error(`bench: ${what} did not provision (exit ${run.exitCode}):\n${run.stdout}`)
  }
}

export function expectRevoked(run: StepRun, what: string): void {
  if (run.exitCode !== 0 || /::(error|warning)::/.test(run.stdout)) {
    throw new Error(`bench: ${what} did not revoke (exit ${run.exitCode}):\n${run.stdout}`)
  }
}
