/**
 * `npm run bench`: what the step costs a pipeline. Makes a throw-away certificate with openssl,
 * starts the local credential service over https in this process, checks the bundle once under
 * the runner emulation, then runs each section (start-up against the https floor, time to fail,
 * dist/ size, the tunnel) with one shared context. Prints each section's report, then every
 * target with its figure and PASS/FAIL, writes bench/results.json, compares with the previous
 * one, and exits 1 when any target is missed.
 *
 * Environment: BENCH_RUNS (default 30) and BENCH_WARMUP (3) per timed case; BENCH_NODE20 names
 * the other runtime; BENCH_SECTIONS (comma-separated names, e.g. "startup") runs only those, and
 * then results.json keeps the other sections' results and targets from the previous file.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { availableParallelism, cpus, loadavg } from 'node:os'
import { delimiter, join } from 'node:path'
import { ensureNode24, repoRoot, runStep } from '../scripts/runner.js'
import { makeThrowawayCertificate } from '../scripts/throwaway-certificate.js'
import { startCredentialService } from '../service/server.js'
import { cliSection } from './cli.js'
import { distSection } from './dist-size.js'
import { pass, round } from './numbers.js'
import type { BenchContext, BenchSection, Runtime, Target } from './section.js'
import { startupSection } from './startup.js'
import { timeToFailSection } from './time-to-fail.js'
import { tunnelSection } from './tunnel.js'

/** In report order. Add a section here: one import, one entry. */
const SECTIONS: Record<string, BenchSection> = {
  startup: startupSection,
  failures: timeToFailSection,
  dist: distSection,
  tunnel: tunnelSection,
  cli: cliSection
}

const resultsFile = join(repoRoot, 'bench', 'results.json')

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

/** The service allows 60 provisions per key per hour: hand out each key at most 50 times. */
function keyPool(size: number): { keys: string[]; next(): string } {
  const keys = Array.from({ length: size }, () => `sk_${randomBytes(32).toString('hex')}`)
  let used = 0
  return {
    keys,
    next() {
      const key = keys[Math.floor(used++ / 50)]
      if (!key) throw new Error('bench: out of API keys; raise the pool size')
      return key
    }
  }
}

const wantedSections = () => process.env.BENCH_SECTIONS?.split(',').map(name => name.trim())

function chosenSections(): BenchSection[] {
  const wanted = wantedSections()
  const unknown = wanted?.filter(name => !(name in SECTIONS)) ?? []
  if (unknown.length > 0) {
    throw new Error(
      `bench: unknown BENCH_SECTIONS ${unknown.join(', ')}; known: ${Object.keys(SECTIONS).join(', ')}`
    )
  }
  return Object.entries(SECTIONS)
    .filter(([name]) => !wanted || wanted.includes(name))
    .map(([, section]) => section)
}

async function main(): Promise<void> {
  const previous = existsSync(resultsFile)
    ? (JSON.parse(readFileSync(resultsFile, 'utf8')) as Record<string, unknown>)
    : {}
  const runtimes: Runtime[] = [ensureNode24(), ...findOtherNode()].map(path => ({
    label: `Node ${nodeVersion(path)?.slice(1)}`,
    path
  }))
  const pool = keyPool(40)
  const certificate = makeThrowawayCertificate()
  const tls = { key: certificate.key, cert: certificate.cert }
  const service = await startCredentialService({ apiKeys: pool.keys, tls })
  const context: BenchContext = {
    runtimes,
    service,
    caFile: certificate.certFile,
    ca: certificate.cert,
    tls,
    nextApiKey: () => pool.next(),
    runs: Number(process.env.BENCH_RUNS ?? 30),
    warmup: Number(process.env.BENCH_WARMUP ?? 3)
  }
  // A run of some sections only starts from the previous file, so the others' data stays.
  const partial = wantedSections() !== undefined
  const results: Record<string, unknown> = {
    ...(partial ? previous : {}),
    date: new Date().toISOString(),
    machine: { cpus: availableParallelism(), model: cpus()[0]?.model ?? '' },
    runs: context.runs,
    warmup: context.warmup
  }
  const targets: Record<string, Target> = {}
  const report = [
    `Benchmark: ${context.runs} counted runs (+${context.warmup} warm-up) per case, in ABBA pairs (verdict: median of the pairs' ratios), ` +
      `${availableParallelism()} cores; service over https (self-signed, NODE_EXTRA_CA_CERTS)`
  ]
  const comparison: string[] = []
  try {
    // Once through the runner emulation itself: the bundle as the runner runs it, end to end.
    const check = await runStep({
      step: 'main',
      env: { NODE_EXTRA_CA_CERTS: certificate.certFile },
      inputs: { 'api-key': pool.next(), project: service.seed.project, 'base-url': service.baseUrl }
    })
    if (check.conclusion !== 'success' || Object.keys(check.env).length !== 4) {
      throw new Error(`bench: the main step fails under the runner emulation:\n${check.stdout}`)
    }
    const loads: Record<string, [number, number]> = {}
    results.loadAverage = loads
    for (const section of chosenSections()) {
      process.stderr.write(`bench: ${section.name} …\n`)
      // The 1-minute load average before and after: every figure is read beside the load it met.
      const before = round(loadavg()[0], 2)
      const outcome = await section.run(context)
      const after = round(loadavg()[0], 2)
      loads[section.name] = [before, after]
      Object.assign(results, outcome.results)
      Object.assign(targets, outcome.targets)
      report.push(...outcome.report, `  (load average ${before} before, ${after} after)`)
      comparison.push(...outcome.compare(previous))
    }
  } finally {
    await service.close()
    certificate.remove()
  }
  const kept = (key: string) => (partial ? (previous[key] as Record<string, unknown>) : {})
  const measured = (value: (target: Target) => unknown) =>
    Object.fromEntries(Object.entries(targets).map(([n, t]) => [n, value(t)]))
  results.targets = { ...kept('targets'), ...measured(t => t.limit) }
  results.pass = { ...kept('pass'), ...measured(t => t.pass) }
  results.figures = { ...kept('figures'), ...measured(t => t.figure) }
  const passed = Object.values(targets).filter(target => target.pass).length
  report.push(
    '',
    `targets: ${passed} of ${Object.keys(targets).length} pass (speed targets on ${runtimes[0].label})`
  )
  for (const [name, target] of Object.entries(targets)) {
    report.push(
      `  ${name.padEnd(22)}${target.figure.padStart(10)}  ${target.limit.padEnd(12)}${pass(target.pass)}`
    )
  }
  if (comparison.length > 0) {
    report.push('', `compared with the previous results.json (${String(previous.date)})`)
    report.push(...comparison)
  }
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`)
  console.log(report.join('\n'))
  console.log(`\nwrote ${resultsFile}`)
  // A missed target fails the command, so that a script or CI step running the bench sees it.
  const failed = Object.keys(targets).filter(name => !targets[name].pass)
  if (failed.length > 0) {
    console.error(`bench: ${failed.length} target(s) missed: ${failed.join(', ')}`)
    process.exitCode = 1
  }
}

await main()
