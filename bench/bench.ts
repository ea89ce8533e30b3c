/**
 * `npm run bench`: what the step costs a pipeline. Starts the local credential service in this
 * process, then times whole `node` processes, alternating A B A B: the bundled main step (happy
 * path) against a bare fetch script that makes the same POST (bench/floor-provision.mjs), and the
 * post step against a bare revoke (bench/floor-revoke.mjs), under Node 24 (the runner's) and under
 * this machine's Node. Then the time to fail on a 429 with an hour's retry_after and on a hung
 * service, and the size of dist/. Writes bench/results.json and compares with the last one.
 *
 * The clock runs from just before spawn to the child's exit, so the harness (preparing files,
 * reading them back) is not counted. Environment: BENCH_RUNS (default 30), BENCH_WARMUP (3).
 */
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { statSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { ensureNode24, repoRoot, runStep } from '../scripts/runner.js'
import { inputVariableName, readActionDefinition } from '../scripts/runner/action-yml.js'
import { createFileCommandFiles } from '../scripts/runner/file-commands.js'
import { startCredentialService, type RunningService } from '../service/server.js'
import { benchTunnel, reportTunnel, type TunnelResults } from './tunnel.js'

const RUNS = Number(process.env.BENCH_RUNS ?? 30)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3)
const FAIL_RUNS = 5
const HUNG_RUNS = 3
const TARGETS = {
  mainRatio: 1.2,
  postRatio: 1.2,
  fail429Ms: 1000,
  hungMs: 4000,
  distLoadedBytes: 600 * 1000
}
const resultsFile = join(repoRoot, 'bench', 'results.json')
const actionEntry = join(repoRoot, readActionDefinition(repoRoot).entries.main)
const floorProvision = join(repoRoot, 'bench', 'floor-provision.mjs')
const floorRevoke = join(repoRoot, 'bench', 'floor-revoke.mjs')

// ---------------------------------------------------------------- statistics

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
const round = (value: number, digits = 1) => Number(value.toFixed(digits))

// ---------------------------------------------------------------- the two runtimes

function nodeVersion(node: string): string | undefined {
  try {
    return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()
  } catch {
    return undefined
  }
}

/**
 * Node 20, the other runtime: BENCH_NODE20 when set, else the node running this script, npm's
 * node, or the first Node 20 on PATH.
 */
function findOtherNode(): string[] {
  const candidates = [
    process.env.BENCH_NODE20,
    process.execPath,
    process.env.npm_node_execpath,
    ...(process.env.PATH ?? '').split(delimiter).map(dir => join(dir, 'node'))
  ]
  for (const candidate of candidates) {
    if (candidate && existsSync(candidate) && nodeVersion(candidate)?.startsWith('v20.')) {
      return [candidate]
    }
  }
  console.warn('bench: no Node 20 found (set BENCH_NODE20); timing Node 24 only')
  return []
}

// ---------------------------------------------------------------- keys and service

/** The service allows 60 provisions per key per hour: hand out each key at most 50 times. */
class KeyPool {
  private used = 0
  constructor(private readonly keys: string[]) {}
  next(): string {
    const key = this.keys[Math.floor(this.used++ / 50)]
    if (!key) throw new Error('bench: out of API keys; raise the pool size')
    return key
  }
}

// ---------------------------------------------------------------- one process, as the runner starts it

interface Run {
  ms: number
  exitCode: number | null
  stdout: string
  env: string
}

/** INPUT_* (with action.yml's defaults), the runner's variables and fresh file-command files. */
function stepEnvironment(dir: string, inputs: Record<string, string>, state = {}) {
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
    ...files
  }
  for (const [name, spec] of readActionDefinition(repoRoot).inputs) {
    if (spec.default !== undefined) env[inputVariableName(name)] = spec.default
  }
  for (const [name, value] of Object.entries(inputs)) env[inputVariableName(name)] = value
  for (const [name, value] of Object.entries(state)) env[`STATE_${name}`] = String(value)
  return { env, workspace, files }
}

async function timeProcess(
  node: string,
  script: string,
  inputs: Record<string, string>,
  state?: Record<string, string>
): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-step-'))
  try {
    const { env, workspace, files } = stepEnvironment(dir, inputs, state)
    let stdout = ''
    const started = performance.now()
    const child = spawn(node, [script], { cwd: workspace, env, stdio: ['ignore', 'pipe', 'pipe'] })
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

function expectExported(run: Run, what: string): void {
  const names = run.env.match(/^SVC_TUNNEL_(TOKEN|USER|HOST|PORT)\b/gm) ?? []
  if (run.exitCode !== 0 || names.length !== 4) {
    throw new Error(`bench: ${what} did not provision (exit ${run.exitCode}):\n${run.stdout}`)
  }
}

function expectRevoked(run: Run, what: string): void {
  if (run.exitCode !== 0 || /::(error|warning)::/.test(run.stdout)) {
    throw new Error(`bench: ${what} did not revoke (exit ${run.exitCode}):\n${run.stdout}`)
  }
}

// ---------------------------------------------------------------- the cases

interface Pairs {
  node: string
  runs: number
  stepMs: number[]
  floorMs: number[]
  stepMedianMs: number
  floorMedianMs: number
  /** Median over pairs of step / floor. */
  ratio: number
}

function summarise(node: string, stepMs: number[], floorMs: number[]): Pairs {
  return {
    node,
    runs: stepMs.length,
    stepMs: stepMs.map(ms => round(ms)),
    floorMs: floorMs.map(ms => round(ms)),
    stepMedianMs: round(median(stepMs)),
    floorMedianMs: round(median(floorMs)),
    ratio: round(median(stepMs.map((ms, i) => ms / floorMs[i])), 3)
  }
}

/** Runs one step-then-floor pair per round, A B A B: warm-ups first, then the counted rounds. */
async function alternate(label: string, pair: () => Promise<[number, number]>): Promise<Pairs> {
  const stepMs: number[] = []
  const floorMs: number[] = []
  for (let i = -WARMUP; i < RUNS; i++) {
    const [step, floor] = await pair()
    if (i >= 0) {
      stepMs.push(step)
      floorMs.push(floor)
    }
  }
  return summarise(label, stepMs, floorMs)
}

async function mainPairs(
  label: string,
  node: string,
  service: RunningService,
  keys: KeyPool
): Promise<Pairs> {
  const inputs = () => ({
    'api-key': keys.next(),
    project: service.seed.project,
    'base-url': service.baseUrl
  })
  return alternate(label, async () => {
    const step = await timeProcess(node, actionEntry, inputs())
    expectExported(step, 'the main step')
    const floor = await timeProcess(node, floorProvision, inputs())
    expectExported(floor, 'floor-provision.mjs')
    return [step.ms, floor.ms]
  })
}

/** A credential as main would have saved it, provisioned straight from here. */
async function savedCredential(service: RunningService, apiKey: string) {
  const response = await fetch(`${service.baseUrl}/credential-provision`, {
    method: 'POST',
    headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ project: service.seed.project })
  })
  if (!response.ok) throw new Error(`bench: provisioning for post failed: ${response.status}`)
  const body = (await response.json()) as { tunnel_user: string; expires_at: string }
  return {
    isPost: 'true',
    credential: JSON.stringify({
      flavour: 'cicd',
      tunnelUser: body.tunnel_user,
      baseUrl: service.baseUrl,
      expiresAt: body.expires_at
    })
  }
}

async function postPairs(
  label: string,
  node: string,
  service: RunningService,
  keys: KeyPool
): Promise<Pairs> {
  return alternate(label, async () => {
    const apiKey = keys.next()
    const inputs = { 'api-key': apiKey, project: service.seed.project, 'base-url': service.baseUrl }
    const step = await timeProcess(
      node,
      actionEntry,
      inputs,
      await savedCredential(service, apiKey)
    )
    expectRevoked(step, 'the post step')
    const floorState = await savedCredential(service, keys.next())
    const floor = await timeProcess(node, floorRevoke, inputs, floorState)
    expectRevoked(floor, 'floor-revoke.mjs')
    return [step.ms, floor.ms]
  })
}

interface FailureTiming {
  node: string
  runs: number
  ms: number[]
  medianMs: number
  maxMs: number
}

async function timeFailure(
  label: string,
  node: string,
  service: RunningService,
  keys: KeyPool,
  runs: number,
  fault: Parameters<RunningService['injectFault']>[0],
  extraInputs: Record<string, string>,
  expected: RegExp
): Promise<FailureTiming> {
  const ms: number[] = []
  for (let i = -1; i < runs; i++) {
    service.resetFaults()
    service.injectFault(fault)
    const run = await timeProcess(node, actionEntry, {
      'api-key': keys.next(),
      project: service.seed.project,
      'base-url': service.baseUrl,
      ...extraInputs
    })
    service.resetFaults()
    if (run.exitCode !== 1 || !expected.test(run.stdout)) {
      throw new Error(`bench: expected a failure matching ${expected}, got:\n${run.stdout}`)
    }
    if (i >= 0) ms.push(run.ms)
  }
  return {
    node: label,
    runs,
    ms: ms.map(v => round(v)),
    medianMs: round(median(ms)),
    maxMs: round(Math.max(...ms))
  }
}

// ---------------------------------------------------------------- dist/

/** What node reads when the runner starts the entry: code, package.json (module type), maps. */
const loadedByRunner = (file: string) => /\.(m?js|cjs|json|node|map)$/.test(file)

function distSizes() {
  const dist = join(repoRoot, 'dist')
  const files: Record<string, { bytes: number; loaded: boolean }> = {}
  const walk = (dir: string, prefix: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) walk(path, `${prefix}${name}/`)
      else files[prefix + name] = { bytes: statSync(path).size, loaded: loadedByRunner(name) }
    }
  }
  walk(dist, '')
  const loadedBytes = Object.values(files)
    .filter(f => f.loaded)
    .reduce((sum, f) => sum + f.bytes, 0)
  return { files, loadedBytes }
}

// ---------------------------------------------------------------- report

const pass = (ok: boolean) => (ok ? 'PASS' : 'FAIL')
const ms = (value: number) => `${value.toFixed(1).padStart(7)} ms`
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1).padStart(7)} KB`

type Results = Awaited<ReturnType<typeof measure>>

async function measure() {
  const node24 = ensureNode24()
  const nodes = [node24, ...findOtherNode()]
  const versions = nodes.map(node => `Node ${nodeVersion(node)?.slice(1)}`)
  const keys = Array.from({ length: 40 }, () => `sk_${randomBytes(32).toString('hex')}`)
  const pool = new KeyPool(keys)
  const service = await startCredentialService({ apiKeys: keys })
  try {
    // Once through the runner emulation itself: the bundle as the runner runs it, end to end.
    const check = await runStep({
      step: 'main',
      inputs: { 'api-key': pool.next(), project: service.seed.project, 'base-url': service.baseUrl }
    })
    if (check.conclusion !== 'success' || Object.keys(check.env).length !== 4) {
      throw new Error(`bench: the main step fails under the runner emulation:\n${check.stdout}`)
    }
    const main = []
    const post = []
    for (const [i, node] of nodes.entries())
      main.push(await mainPairs(versions[i], node, service, pool))
    for (const [i, node] of nodes.entries())
      post.push(await postPairs(versions[i], node, service, pool))
    const fail429 = await timeFailure(
      versions[0],
      node24,
      service,
      pool,
      FAIL_RUNS,
      { kind: '429', retryAfter: 3600, endpoint: 'credential-provision' },
      {},
      /::error::.*/
    )
    const hung = await timeFailure(
      versions[0],
      node24,
      service,
      pool,
      HUNG_RUNS,
      { kind: 'hang', count: 2, endpoint: 'credential-provision' },
      { 'timeout-seconds': '1', 'max-attempts': '2' },
      /::error::.*/
    )
    const dist = distSizes()
    const checks = {
      mainRatio: main[0].ratio <= TARGETS.mainRatio,
      postRatio: post[0].ratio <= TARGETS.postRatio,
      fail429: fail429.medianMs < TARGETS.fail429Ms,
      hung: hung.medianMs < TARGETS.hungMs,
      distLoaded: dist.loadedBytes <= TARGETS.distLoadedBytes
    }
    return {
      date: new Date().toISOString(),
      machine: { cpus: availableParallelism(), model: cpus()[0]?.model ?? '' },
      runs: RUNS,
      warmup: WARMUP,
      main,
      post,
      fail429,
      hung,
      dist,
      targets: TARGETS,
      pass: checks
    }
  } finally {
    await service.close()
  }
}

function report(results: Results, previous: Results | undefined): string {
  const lines: string[] = []
  const out = (line = '') => lines.push(line)
  out(
    `Benchmark: ${results.runs} counted runs (+${results.warmup} warm-up) per case, A B alternating, ` +
      `${results.machine.cpus} cores`
  )
  const pairs = (title: string, rows: Pairs[], target: number) => {
    out()
    out(title)
    out('                   step      floor   step/floor (median of pairs)')
    for (const row of rows) {
      const verdict = row === rows[0] ? `  target <= ${target}x  ${pass(row.ratio <= target)}` : ''
      out(
        `  ${row.node.padEnd(13)}${ms(row.stepMedianMs)} ${ms(row.floorMedianMs)}   ${row.ratio.toFixed(3)}x${verdict}`
      )
    }
  }
  pairs('main step vs floor-provision.mjs (medians)', results.main, TARGETS.mainRatio)
  pairs('post step vs floor-revoke.mjs (medians)', results.post, TARGETS.postRatio)
  out()
  out(`time to fail (${results.fail429.node}, median of runs, max)`)
  out(
    `  429, retry_after 3600 s      ${ms(results.fail429.medianMs)}  (max ${results.fail429.maxMs.toFixed(0)} ms, ${results.fail429.runs} runs)` +
      `  target < ${TARGETS.fail429Ms} ms  ${pass(results.pass.fail429)}`
  )
  out(
    `  hung, timeout 1 s x 2 tries ${ms(results.hung.medianMs)}  (max ${results.hung.maxMs.toFixed(0)} ms, ${results.hung.runs} runs)` +
      `  target < ${TARGETS.hungMs} ms  ${pass(results.pass.hung)}`
  )
  out()
  out('dist/')
  for (const [name, file] of Object.entries(results.dist.files)) {
    out(
      `  ${name.padEnd(28)}${kb(file.bytes)}  ${file.loaded ? 'loaded by the runner' : 'not loaded'}`
    )
  }
  out(
    `  ${'loaded together'.padEnd(28)}${kb(results.dist.loadedBytes)}  target <= ${TARGETS.distLoadedBytes / 1000} KB  ${pass(results.pass.distLoaded)}`
  )
  const passed = Object.values(results.pass).filter(Boolean).length
  out()
  out(
    `targets: ${passed} of ${Object.keys(results.pass).length} pass (speed targets on ${results.main[0].node})`
  )
  if (previous) {
    out()
    out(`compared with the previous results.json (${previous.date})`)
    const change = (name: string, before: number | undefined, after: number, unit: string) => {
      if (before === undefined) return
      const percent = before === 0 ? 0 : ((after - before) / before) * 100
      const sign = percent > 0 ? '+' : ''
      out(
        `  ${name.padEnd(30)}${before.toFixed(unit === 'x' ? 3 : 1).padStart(10)} -> ${after.toFixed(unit === 'x' ? 3 : 1).padStart(10)} ${unit.padEnd(2)} (${sign}${percent.toFixed(1)}%)`
      )
    }
    for (const [kind, rows, before] of [
      ['main', results.main, previous.main],
      ['post', results.post, previous.post]
    ] as const) {
      for (const [i, row] of rows.entries()) {
        const old = before?.[i]
        change(`${kind} step, ${row.node}`, old?.stepMedianMs, row.stepMedianMs, 'ms')
        change(`${kind} floor, ${row.node}`, old?.floorMedianMs, row.floorMedianMs, 'ms')
        change(`${kind} step/floor, ${row.node}`, old?.ratio, row.ratio, 'x')
      }
    }
    change('fail on 429', previous.fail429?.medianMs, results.fail429.medianMs, 'ms')
    change('fail on hung service', previous.hung?.medianMs, results.hung.medianMs, 'ms')
    change('dist loaded', previous.dist?.loadedBytes / 1000, results.dist.loadedBytes / 1000, 'KB')
  }
  return lines.join('\n')
}

const previous = existsSync(resultsFile)
  ? (JSON.parse(readFileSync(resultsFile, 'utf8')) as Results)
  : undefined
const results = { ...(await measure()), tunnel: await benchTunnel() }
writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`)
console.log(report(results, previous))
console.log(
  reportTunnel(results.tunnel, (previous as { tunnel?: TunnelResults } | undefined)?.tunnel)
)
console.log(`\nwrote ${resultsFile}`)
