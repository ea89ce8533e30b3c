/**
 * What a step costs next to the least a Node step can cost: the bundled main step against
 * bench/floor-provision.cjs (the same POST with node:https, four lines to GITHUB_ENV), and the
 * post step against bench/floor-revoke.cjs, in ABBA pairs judged by the median of the pairs'
 * ratios (bench/paired.ts), so that drift hits both alike.
 * Both sides do TLS against the same https service, and both are CommonJS files, as the runner
 * starts dist/index.cjs. Targets on the runner's Node only: at most 1.35x the floor, a line held
 * rather than a figure to trim further. Once more each, with bench/loaded-files.cjs preloaded: a
 * step without `expose` loads dist/index.cjs alone, never the chunk that holds the tunnel's code
 * (its launch, request log, gate and URL proof), which steps with `expose` load.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { repoRoot } from '../scripts/runner.js'
import { change, median, ms, pass, round } from './numbers.js'
import {
  comparePaired,
  describeSpread,
  oursFirst,
  roundSpread,
  type RatioSpread
} from './paired.js'
import type { BenchContext, BenchSection, Runtime } from './section.js'
import { actionEntry, expectExported, expectRevoked, timeStep } from './step-process.js'

const TARGETS = { mainRatio: 1.35, postRatio: 1.35 }
const floorProvision = join(repoRoot, 'bench', 'floor-provision.cjs')
const floorRevoke = join(repoRoot, 'bench', 'floor-revoke.cjs')
const loadedFilesProbe = join(repoRoot, 'bench', 'loaded-files.cjs')

export interface Pairs {
  node: string
  runs: number
  stepMs: number[]
  floorMs: number[]
  stepMedianMs: number
  floorMedianMs: number
  /** Median over pairs of step / floor: the verdict. */
  ratio: number
  /** The pairs' ratios: their quartiles and extremes, beside the median. */
  spread: RatioSpread
  /** The warm-up pairs, not counted: [step, floor] each, what a cold start costs. */
  warmupMs: [number, number][]
}

export function summarise(
  node: string,
  stepMs: number[],
  floorMs: number[],
  warmupMs: [number, number][] = []
): Pairs {
  const spread = comparePaired(stepMs, floorMs)
  return {
    node,
    warmupMs: warmupMs.map(([step, floor]) => [round(step), round(floor)]),
    runs: stepMs.length,
    stepMs: stepMs.map(value => round(value)),
    floorMs: floorMs.map(value => round(value)),
    stepMedianMs: round(median(stepMs)),
    floorMedianMs: round(median(floorMs)),
    ratio: round(spread.median, 3),
    spread: roundSpread(spread)
  }
}

/**
 * One step and one floor per pair, in ABBA order (the step first, then the floor first), so
 * neither side always runs right after the other's process: warm-up pairs first, not counted
 * (the first processes after a build pay for the page cache), then the counted pairs.
 */
export async function alternate(
  context: Pick<BenchContext, 'runs' | 'warmup'>,
  label: string,
  step: () => Promise<number>,
  floor: () => Promise<number>
): Promise<Pairs> {
  const stepMs: number[] = []
  const floorMs: number[] = []
  const warmupMs: [number, number][] = []
  for (let i = -context.warmup; i < context.runs; i++) {
    let stepTime: number
    let floorTime: number
    if (oursFirst(i + context.warmup)) {
      stepTime = await step()
      floorTime = await floor()
    } else {
      floorTime = await floor()
      stepTime = await step()
    }
    if (i >= 0) {
      stepMs.push(stepTime)
      floorMs.push(floorTime)
    } else warmupMs.push([stepTime, floorTime])
  }
  return summarise(label, stepMs, floorMs, warmupMs)
}

const stepInputs = (context: BenchContext, apiKey: string) => ({
  'api-key': apiKey,
  project: context.service.seed.project,
  'base-url': context.service.baseUrl
})

function mainPairs(context: BenchContext, runtime: Runtime): Promise<Pairs> {
  const launch = (script: string) => ({
    node: runtime.path,
    script,
    caFile: context.caFile,
    inputs: stepInputs(context, context.nextApiKey())
  })
  return alternate(
    context,
    runtime.label,
    async () => {
      const step = await timeStep(launch(actionEntry))
      expectExported(step, 'the main step')
      return step.ms
    },
    async () => {
      const floor = await timeStep(launch(floorProvision))
      expectExported(floor, 'floor-provision.cjs')
      return floor.ms
    }
  )
}

/** A credential as main would have saved it, provisioned straight from here. */
function savedCredential(context: BenchContext, apiKey: string): Promise<Record<string, string>> {
  const { service } = context
  return new Promise((resolve, reject) => {
    const outgoing = request(`${service.baseUrl}/credential-provision`, {
      method: 'POST',
      ca: context.ca,
      headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' }
    })
    outgoing.on('response', incoming => {
      let text = ''
      incoming.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
      incoming.on('end', () => {
        if (incoming.statusCode !== 200) {
          reject(new Error(`bench: provisioning for post failed: ${incoming.statusCode}`))
          return
        }
        const body = JSON.parse(text) as { tunnel_user: string; expires_at: string }
        resolve({
          isPost: 'true',
          credential: JSON.stringify({
            kind: 'cicd',
            tunnelUser: body.tunnel_user,
            baseUrl: service.baseUrl,
            expiresAt: body.expires_at
          })
        })
      })
    })
    outgoing.on('error', reject).end(JSON.stringify({ project: service.seed.project }))
  })
}

function postPairs(context: BenchContext, runtime: Runtime): Promise<Pairs> {
  const launch = async (script: string) => {
    const apiKey = context.nextApiKey()
    return {
      node: runtime.path,
      script,
      caFile: context.caFile,
      inputs: stepInputs(context, apiKey),
      state: await savedCredential(context, apiKey)
    }
  }
  return alternate(
    context,
    runtime.label,
    async () => {
      const step = await timeStep(await launch(actionEntry))
      expectRevoked(step, 'the post step')
      return step.ms
    },
    async () => {
      const floor = await timeStep(await launch(floorRevoke))
      expectRevoked(floor, 'floor-revoke.cjs')
      return floor.ms
    }
  )
}

/** The files of dist/ that main and post without `expose` load, once each, on the runner's Node. */
async function plainStepsLoad(context: BenchContext): Promise<string[]> {
  const dist = dirname(actionEntry)
  const dir = mkdtempSync(join(tmpdir(), 'bench-loaded-'))
  const list = join(dir, 'loaded')
  const loaded = new Set<string>()
  try {
    for (const step of ['main', 'post'] as const) {
      const apiKey = context.nextApiKey()
      const run = await timeStep({
        node: context.runtimes[0].path,
        script: actionEntry,
        caFile: context.caFile,
        inputs: stepInputs(context, apiKey),
        ...(step === 'post' ? { state: await savedCredential(context, apiKey) } : {}),
        preload: loadedFilesProbe,
        env: { BENCH_LOADED_FILES: list }
      })
      if (step === 'main') expectExported(run, 'the main step (files loaded)')
      else expectRevoked(run, 'the post step (files loaded)')
      for (const file of readFileSync(list, 'utf8').split('\n')) {
        if (file.startsWith(`${dist}/`)) loaded.add(relative(dist, file))
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return [...loaded].sort()
}

export function reportPairs(title: string, rows: Pairs[], target: number): string[] {
  const lines = ['', title, '                   step      floor   step/floor (median of pairs)']
  for (const row of rows) {
    const verdict = row === rows[0] ? `  target <= ${target}x  ${pass(row.ratio <= target)}` : ''
    lines.push(
      `  ${row.node.padEnd(13)}${ms(row.stepMedianMs)} ${ms(row.floorMedianMs)}   ${row.ratio.toFixed(3)}x${verdict}`,
      `  ${''.padEnd(13)}pairs in ABBA order: ${describeSpread(row.spread)}`,
      `  ${''.padEnd(13)}warm-up pairs (not counted), step/floor ms: ${
        row.warmupMs.map(([step, floor]) => `${step}/${floor}`).join(', ') || 'none'
      }`
    )
  }
  return lines
}

export const startupSection: BenchSection = {
  name: 'start-up against the https floor',
  async run(context) {
    const main: Pairs[] = []
    const post: Pairs[] = []
    for (const runtime of context.runtimes) main.push(await mainPairs(context, runtime))
    for (const runtime of context.runtimes) post.push(await postPairs(context, runtime))
    const plainLoads = await plainStepsLoad(context)
    const plainOk = plainLoads.length === 1 && plainLoads[0] === 'index.cjs'
    return {
      results: { main, post, plainStepsLoad: plainLoads },
      targets: {
        mainRatio: {
          figure: `${main[0].ratio.toFixed(3)}x`,
          limit: `<= ${TARGETS.mainRatio}x`,
          pass: main[0].ratio <= TARGETS.mainRatio
        },
        postRatio: {
          figure: `${post[0].ratio.toFixed(3)}x`,
          limit: `<= ${TARGETS.postRatio}x`,
          pass: post[0].ratio <= TARGETS.postRatio
        },
        plainStepsLoad: {
          figure: plainOk ? 'index.cjs' : `${plainLoads.length} files`,
          limit: 'index.cjs',
          pass: plainOk
        }
      },
      report: [
        ...reportPairs('main step vs floor-provision.cjs (medians)', main, TARGETS.mainRatio),
        ...reportPairs('post step vs floor-revoke.cjs (medians)', post, TARGETS.postRatio),
        '',
        `main and post without expose load from dist/: ${plainLoads.join(', ') || 'nothing'}` +
          `  (only index.cjs: the tunnel's chunk stays out)  ${pass(plainOk)}`
      ],
      compare(previous) {
        const lines: string[] = []
        for (const [kind, rows] of [
          ['main', main],
          ['post', post]
        ] as const) {
          const before = previous[kind] as Pairs[] | undefined
          for (const [i, row] of rows.entries()) {
            const old = before?.[i]
            lines.push(
              ...change(`${kind} step, ${row.node}`, old?.stepMedianMs, row.stepMedianMs, 'ms'),
              ...change(`${kind} floor, ${row.node}`, old?.floorMedianMs, row.floorMedianMs, 'ms'),
              ...change(`${kind} step/floor, ${row.node}`, old?.ratio, row.ratio, 'x')
            )
          }
        }
        return lines
      }
    }
  }
}
