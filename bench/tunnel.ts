/**
 * The `tunnel` section of `npm run bench` (BENCH_SECTIONS=tunnel runs it alone): the action's
 * `expose` against OpenSSH's `ssh -N -R` (the README recipe), both against one tunnel stand-in
 * in one run, both reaching one local app:
 * - time to ready: the main step with `expose`, until it exits 0, against the recipe's whole path,
 *   main without `expose` and then `ssh -f -N -o ExitOnForwardFailure=yes`: main with `expose`
 *   provisions too, so `ssh -f` alone would leave out the request the action makes;
 * - throughput of a 50 MiB download through the tunnel;
 * - median latency of 200 small requests through it, one after another;
 * - the tunnel process's resident memory after that load (the action's keeper; ssh's master).
 * Opens alternate between the two clients, A B B A, so drift in the machine hits both alike.
 *
 * Until the action has an `expose` input, the candidate is OpenSSH again, which checks the
 * harness (both sides should come out alike) and reports no verdict. BENCH_TUNNEL_CANDIDATE=
 * openssh forces that. Environment: BENCH_TUNNEL_RUNS (opens per client for time to ready,
 * default 20: a fresh ssh login takes either about 25 or about 65 ms here, and the median of
 * fewer flips between the two), BENCH_TUNNEL_LOAD_ROUNDS (sessions per client under load,
 * default 2).
 */
import { randomBytes } from 'node:crypto'
import { repoRoot } from '../scripts/runner.js'
import { readActionDefinition } from '../scripts/runner/action-yml.js'
import { change, median as medianOf, round } from './numbers.js'
import type { BenchContext, BenchSection, Target } from './section.js'
import { startCredentialService } from '../service/server.js'
import {
  actionClient,
  openSshClient,
  residentKib,
  type ClientContext,
  type TunnelClient
} from './tunnel-clients.js'
import {
  downloadThroughput,
  smallRequestTimes,
  startBenchApp,
  DOWNLOAD_BYTES
} from './tunnel-load.js'

const READY_RUNS = Number(process.env.BENCH_TUNNEL_RUNS ?? 20)
const LOAD_ROUNDS = Number(process.env.BENCH_TUNNEL_LOAD_ROUNDS ?? 2)
const DOWNLOADS_PER_ROUND = 3
const SMALL_REQUESTS = 200

export const TUNNEL_TARGETS = {
  /** Candidate's time to ready / the recipe's (main, then `ssh -f`), at most. */
  readyRatio: 1.2,
  /** Candidate's throughput / OpenSSH's, at least. */
  throughputRatio: 0.8,
  /** Candidate's median latency / OpenSSH's, at most. */
  latencyRatio: 1.5,
  /** Candidate's tunnel process, at most, after the load. */
  rssMb: 100
}

/** NaN when every sample of a figure failed: the report then shows n/a, not a number. */
const median = (values: number[]) => (values.length === 0 ? NaN : medianOf(values))

interface ClientFigures {
  label: string
  /**
   * Each open's time to ready, the whole way to a URL: the main step with expose, or (the
   * recipe) main without expose and then `ssh -f`.
   */
  readyMs: number[]
  readyMedianMs: number
  /** MB/s of each 50 MiB download. */
  throughputMBps: number[]
  throughputMedianMBps: number
  /** Median and 90th percentile of every small request's time, all load rounds together. */
  latencyMedianMs: number
  latencyP90Ms: number
  /** Resident memory of the tunnel process after each load round, MB (10^6 bytes). */
  rssMb: number[]
  rssMaxMb: number
  /** The post step's tunnel line from the last load round (the action only). */
  postLine?: string
  /** What went wrong; a target whose measurement had a failure does not pass. */
  failures: Failure[]
}

type Measurement = 'open' | 'download' | 'small requests' | 'memory' | 'close'

interface Failure {
  what: Measurement
  message: string
}

export interface TunnelResults {
  /** True while the candidate is OpenSSH itself: figures only, no verdict. */
  validation: boolean
  runs: number
  loadRounds: number
  downloadBytes: number
  smallRequests: number
  yardstick: ClientFigures
  candidate: ClientFigures
  ratios: {
    readyVsRecipe: number
    throughput: number
    latency: number
  }
  targets: typeof TUNNEL_TARGETS
  /** Null in validation mode. */
  pass: {
    readyVsRecipe: boolean
    throughput: boolean
    latency: boolean
    rss: boolean
  } | null
}

interface Samples {
  ready: number[]
  throughput: number[]
  latency: number[]
  rssKib: number[]
  postLine?: string
  failures: Failure[]
}

const emptySamples = (): Samples => ({
  ready: [],
  throughput: [],
  latency: [],
  rssKib: [],
  failures: []
})

/** Runs one measurement; a failure is recorded for the report instead of ending the benchmark. */
async function attempt<T>(
  samples: Samples,
  what: Measurement,
  run: () => Promise<T>
): Promise<T | undefined> {
  try {
    return await run()
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    samples.failures.push({ what, message: message.split('\n')[0] })
    return undefined
  }
}

/** A B, then B A: each client goes first as often as the other. */
const inTurn = <T>(pair: [T, T], round: number): [T, T] =>
  round % 2 === 0 ? pair : [pair[1], pair[0]]

function figures(label: string, samples: Samples): ClientFigures {
  const sortedLatency = [...samples.latency].sort((a, b) => a - b)
  const rssMb = samples.rssKib.map(kib => round((kib * 1024) / 1e6))
  return {
    label,
    readyMs: samples.ready.map(ms => round(ms)),
    readyMedianMs: round(median(samples.ready)),
    throughputMBps: samples.throughput.map(value => round(value)),
    throughputMedianMBps: round(median(samples.throughput)),
    latencyMedianMs: round(median(samples.latency), 2),
    latencyP90Ms: round(sortedLatency[Math.floor(sortedLatency.length * 0.9)] ?? 0, 2),
    rssMb,
    rssMaxMb: rssMb.length === 0 ? NaN : Math.max(...rssMb),
    ...(samples.postLine === undefined ? {} : { postLine: samples.postLine }),
    failures: samples.failures
  }
}

/** Whether this checkout's action.yml declares `expose` (the action's tunnel has landed). */
function actionCanExpose(): boolean {
  return readActionDefinition(repoRoot).inputs.has('expose')
}

/**
 * Its own service, with the tunnel stand-in, over https with the run's certificate like the
 * shared one, so both ways to a URL pay the same TLS for their main step.
 */
export async function benchTunnel(
  bench: Pick<BenchContext, 'runtimes' | 'tls' | 'caFile'>,
  log: (line: string) => void = () => undefined
): Promise<TunnelResults> {
  const validation = process.env.BENCH_TUNNEL_CANDIDATE === 'openssh' || !actionCanExpose()
  const keys = Array.from({ length: 4 }, () => `sk_${randomBytes(32).toString('hex')}`)
  let provisions = 0
  const context: ClientContext = {
    node: bench.runtimes[0].path,
    env: { NODE_EXTRA_CA_CERTS: bench.caFile },
    service: await startCredentialService({ apiKeys: keys, tunnel: true, tls: bench.tls }),
    nextKey: () => keys[Math.floor(provisions++ / 50)] ?? keys[0]
  }
  const app = await startBenchApp()
  const { frontPort } = context.service.tunnel!
  const clients: [TunnelClient, TunnelClient] = [
    openSshClient(context),
    validation ? openSshClient(context, 'again (check)') : actionClient(context)
  ]
  const samples = new Map(clients.map(client => [client, emptySamples()]))
  try {
    // Time to ready: one warm-up open each (not counted), then READY_RUNS each, alternating.
    for (let run = -1; run < READY_RUNS; run++) {
      for (const client of inTurn(clients, run + 1)) {
        const own = samples.get(client)!
        const tunnel = await attempt(own, 'open', async () => {
          const opened = await client.open(app.port)
          await opened.close()
          return opened
        })
        if (run < 0 || tunnel === undefined) continue
        own.ready.push(tunnel.provisionMs + tunnel.readyMs)
      }
    }
    log(`tunnel: time to ready measured (${READY_RUNS} opens per client)`)
    // Under load: a fresh tunnel per round, downloads, then the small requests, then memory.
    for (let round = 0; round < LOAD_ROUNDS; round++) {
      for (const client of inTurn(clients, round)) {
        const own = samples.get(client)!
        const tunnel = await attempt(own, 'open', () => client.open(app.port))
        if (tunnel === undefined) continue
        for (let i = 0; i < DOWNLOADS_PER_ROUND; i++) {
          const mbps = await attempt(own, 'download', () =>
            downloadThroughput(frontPort, tunnel.host)
          )
          if (mbps !== undefined) own.throughput.push(mbps)
        }
        const times = await attempt(own, 'small requests', () =>
          smallRequestTimes(frontPort, tunnel.host, SMALL_REQUESTS)
        )
        own.latency.push(...(times ?? []))
        const rss = await attempt(own, 'memory', async () => {
          const kib = await residentKib(tunnel.pid)
          if (kib === undefined) throw new Error(`process ${tunnel.pid} is gone`)
          return kib
        })
        if (rss !== undefined) own.rssKib.push(rss)
        const line = await attempt(own, 'close', () => tunnel.close())
        if (line !== undefined) own.postLine = line
      }
      log(`tunnel: load round ${round + 1} of ${LOAD_ROUNDS} done`)
    }
  } finally {
    await app.close()
    await context.service.close()
  }

  const yardstick = figures(clients[0].label, samples.get(clients[0])!)
  const candidate = figures(clients[1].label, samples.get(clients[1])!)
  const ratios = {
    readyVsRecipe: round(candidate.readyMedianMs / yardstick.readyMedianMs, 3),
    throughput: round(candidate.throughputMedianMBps / yardstick.throughputMedianMBps, 3),
    latency: round(candidate.latencyMedianMs / yardstick.latencyMedianMs, 3)
  }
  /** No failure on either side: a ratio over partial samples would not be a figure. */
  const clean = (what: Measurement) =>
    ![...yardstick.failures, ...candidate.failures].some(failure => failure.what === what)
  const results: TunnelResults = {
    validation,
    runs: READY_RUNS,
    loadRounds: LOAD_ROUNDS,
    downloadBytes: DOWNLOAD_BYTES,
    smallRequests: SMALL_REQUESTS,
    yardstick,
    candidate,
    ratios,
    targets: TUNNEL_TARGETS,
    pass: validation
      ? null
      : {
          readyVsRecipe: clean('open') && ratios.readyVsRecipe <= TUNNEL_TARGETS.readyRatio,
          throughput: clean('download') && ratios.throughput >= TUNNEL_TARGETS.throughputRatio,
          latency: clean('small requests') && ratios.latency <= TUNNEL_TARGETS.latencyRatio,
          rss: clean('memory') && candidate.rssMaxMb <= TUNNEL_TARGETS.rssMb
        }
  }
  return results
}

// ---------------------------------------------------------------- report

const verdict = (ok: boolean | undefined) => (ok === undefined ? '' : ok ? 'PASS' : 'FAIL')
/** A figure with its unit, or n/a when every sample of it failed. */
const shown = (value: number | null | undefined, digits: number, unit: string) =>
  typeof value === 'number' && Number.isFinite(value) ? `${value.toFixed(digits)}${unit}` : 'n/a'

export function reportTunnel(results: TunnelResults): string {
  const { yardstick: a, candidate: b, ratios, pass } = results
  const lines: string[] = []
  const out = (line = '') => lines.push(line)
  const mib = results.downloadBytes / 1024 / 1024
  out()
  out(
    `tunnel: ${b.label} vs ${a.label}, one stand-in; ${results.runs} opens each for time to ready, ` +
      `${results.loadRounds} sessions each under load (${DOWNLOADS_PER_ROUND} x ${mib} MiB, ${results.smallRequests} small GETs)`
  )
  if (results.validation) {
    out(
      '  harness check: the action has no expose input here, so OpenSSH runs on both sides; no verdict'
    )
  }
  const row = (
    name: string,
    [left, right, digits, unit]: [number | undefined, number | undefined, number, string],
    ratio: number | null,
    target: string,
    ok: boolean | undefined
  ) =>
    out(
      `  ${name.padEnd(30)}${shown(left, digits, unit).padStart(12)} ${shown(right, digits, unit).padStart(12)}` +
        `   ${(ratio === null ? '' : shown(ratio, 3, 'x')).padEnd(8)} ${target.padEnd(10)} ${verdict(ok)}`
    )
  out(
    `  ${''.padEnd(30)}${b.label.slice(0, 12).padStart(12)} ${a.label.slice(0, 12).padStart(12)}   ratio`
  )
  row(
    'time to ready vs the recipe',
    [b.readyMedianMs, a.readyMedianMs, 1, ' ms'],
    ratios.readyVsRecipe,
    `<= ${TUNNEL_TARGETS.readyRatio}x`,
    pass?.readyVsRecipe
  )
  out(`  ${''.padEnd(30)}(median; the recipe: main, then ssh -f)`)
  row(
    `throughput, ${mib} MiB (median)`,
    [b.throughputMedianMBps, a.throughputMedianMBps, 1, ' MB/s'],
    ratios.throughput,
    `>= ${TUNNEL_TARGETS.throughputRatio}x`,
    pass?.throughput
  )
  row(
    'latency, small GET (median)',
    [b.latencyMedianMs, a.latencyMedianMs, 2, ' ms'],
    ratios.latency,
    `<= ${TUNNEL_TARGETS.latencyRatio}x`,
    pass?.latency
  )
  row('  p90, for context', [b.latencyP90Ms, a.latencyP90Ms, 2, ' ms'], null, '', undefined)
  row(
    'RSS after load (max)',
    [b.rssMaxMb, a.rssMaxMb, 1, ' MB'],
    null,
    `<= ${TUNNEL_TARGETS.rssMb} MB`,
    pass?.rss
  )
  if (b.postLine !== undefined) out(`  post step's tunnel line: ${b.postLine}`)
  for (const client of [b, a]) {
    const counted = new Map<string, number>()
    for (const { what, message } of client.failures) {
      const key = `${what}: ${message}`
      counted.set(key, (counted.get(key) ?? 0) + 1)
    }
    for (const [key, count] of counted) out(`  ${client.label} failed ${count}x, ${key}`)
  }
  if (pass !== null) {
    const values = Object.values(pass)
    out(`  tunnel targets: ${values.filter(Boolean).length} of ${values.length} pass`)
  }
  return lines.join('\n')
}

/** The ratios and the keeper's memory against the previous results.json, when both judged the action. */
function compareTunnel(previous: TunnelResults | undefined, results: TunnelResults): string[] {
  if (previous === undefined || previous.validation || results.validation) return []
  return [
    ...change(
      'tunnel ready / recipe',
      previous.ratios?.readyVsRecipe ?? undefined,
      results.ratios.readyVsRecipe,
      'x'
    ),
    ...change(
      'tunnel throughput / ssh',
      previous.ratios?.throughput,
      results.ratios.throughput,
      'x'
    ),
    ...change('tunnel latency / ssh', previous.ratios?.latency, results.ratios.latency, 'x'),
    ...change('tunnel keeper RSS', previous.candidate?.rssMaxMb, results.candidate.rssMaxMb, 'MB')
  ]
}

/** The `tunnel` section of `npm run bench`: figures, PASS/FAIL per target, results.tunnel. */
export const tunnelSection: BenchSection = {
  name: 'tunnel',
  async run(context) {
    const results = await benchTunnel(context, line => process.stderr.write(`bench: ${line}\n`))
    const limits: Record<keyof NonNullable<TunnelResults['pass']>, string> = {
      readyVsRecipe: `<= ${TUNNEL_TARGETS.readyRatio}x`,
      throughput: `>= ${TUNNEL_TARGETS.throughputRatio}x`,
      latency: `<= ${TUNNEL_TARGETS.latencyRatio}x`,
      rss: `<= ${TUNNEL_TARGETS.rssMb} MB`
    }
    const { ratios, candidate } = results
    const figures: Record<keyof typeof limits, string> = {
      readyVsRecipe: shown(ratios.readyVsRecipe, 3, 'x'),
      throughput: shown(ratios.throughput, 3, 'x'),
      latency: shown(ratios.latency, 3, 'x'),
      rss: shown(candidate.rssMaxMb, 1, ' MB')
    }
    const targets: Record<string, Target> = {}
    for (const [name, pass] of Object.entries(results.pass ?? {})) {
      const key = name as keyof typeof limits
      targets[`tunnel${key[0].toUpperCase()}${key.slice(1)}`] = {
        figure: figures[key],
        limit: limits[key],
        pass
      }
    }
    return {
      results: { tunnel: results },
      targets,
      report: reportTunnel(results).split('\n'),
      compare: previous => compareTunnel(previous.tunnel as TunnelResults | undefined, results)
    }
  }
}
