/**
 * The tunnel part of `npm run bench`: the action's `expose` against OpenSSH's `ssh -N -R` (the
 * README recipe), both against one tunnel stand-in in one run, both reaching one local app:
 * - time to ready: the main step with `expose`, until it exits 0, against `ssh -f -N -o
 *   ExitOnForwardFailure=yes` (and against the recipe's whole path: main without `expose`, then
 *   `ssh -f`, since main with `expose` also provisions);
 * - throughput of a 50 MiB download through the tunnel;
 * - median latency of 200 small requests through it, one after another;
 * - the tunnel process's resident memory after that load (the action's keeper; ssh's master).
 * Opens alternate between the two clients, A B B A, so drift in the machine hits both alike.
 *
 * Until the action has an `expose` input, the candidate is OpenSSH again, which checks the
 * harness (both sides should come out alike) and reports no verdict. BENCH_TUNNEL_CANDIDATE=
 * openssh forces that. Environment: BENCH_TUNNEL_RUNS (opens per client for time to ready,
 * default 10), BENCH_TUNNEL_LOAD_ROUNDS (sessions per client under load, default 2).
 */
import { randomBytes } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { ensureNode24, repoRoot } from '../scripts/runner.js'
import { readActionDefinition } from '../scripts/runner/action-yml.js'
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

const READY_RUNS = Number(process.env.BENCH_TUNNEL_RUNS ?? 10)
const LOAD_ROUNDS = Number(process.env.BENCH_TUNNEL_LOAD_ROUNDS ?? 2)
const DOWNLOADS_PER_ROUND = 3
const SMALL_REQUESTS = 200

export const TUNNEL_TARGETS = {
  /** Candidate's time to ready / OpenSSH's, at most. */
  readyRatio: 1.5,
  /** Candidate's throughput / OpenSSH's, at least. */
  throughputRatio: 0.8,
  /** Candidate's median latency / OpenSSH's, at most. */
  latencyRatio: 1.25,
  /** Candidate's tunnel process, at most, after the load. */
  rssMb: 100
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
const round = (value: number, digits = 1) => Number(value.toFixed(digits))

interface ClientFigures {
  label: string
  /** Each open's time to ready: the main step with expose, or `ssh -f` alone. */
  readyMs: number[]
  readyMedianMs: number
  /** OpenSSH only: main without expose plus `ssh -f`, the recipe's whole way to a URL. */
  recipeReadyMedianMs?: number
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
    ready: number
    readyVsRecipe: number | null
    throughput: number
    latency: number
  }
  targets: typeof TUNNEL_TARGETS
  /** Null in validation mode. */
  pass: {
    ready: boolean
    readyVsRecipe: boolean
    throughput: boolean
    latency: boolean
    rss: boolean
  } | null
}

interface Samples {
  ready: number[]
  recipe: number[]
  throughput: number[]
  latency: number[]
  rssKib: number[]
  postLine?: string
}

const emptySamples = (): Samples => ({
  ready: [],
  recipe: [],
  throughput: [],
  latency: [],
  rssKib: []
})

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
    ...(samples.recipe.some(ms => ms > 0)
      ? { recipeReadyMedianMs: round(median(samples.recipe)) }
      : {}),
    throughputMBps: samples.throughput.map(value => round(value)),
    throughputMedianMBps: round(median(samples.throughput)),
    latencyMedianMs: round(median(samples.latency), 2),
    latencyP90Ms: round(sortedLatency[Math.floor(sortedLatency.length * 0.9)] ?? 0, 2),
    rssMb,
    rssMaxMb: Math.max(...rssMb),
    ...(samples.postLine === undefined ? {} : { postLine: samples.postLine })
  }
}

/** Whether this checkout's action.yml declares `expose` (the action's tunnel has landed). */
function actionCanExpose(): boolean {
  return readActionDefinition(repoRoot).inputs.has('expose')
}

export async function benchTunnel(log: (line: string) => void = () => undefined) {
  const validation = process.env.BENCH_TUNNEL_CANDIDATE === 'openssh' || !actionCanExpose()
  const keys = Array.from({ length: 4 }, () => `sk_${randomBytes(32).toString('hex')}`)
  let provisions = 0
  const context: ClientContext = {
    node: ensureNode24(),
    service: await startCredentialService({ apiKeys: keys, tunnel: true }),
    nextKey: () => keys[Math.floor(provisions++ / 50)] ?? keys[0]
  }
  const app = await startBenchApp()
  const { frontPort } = context.service.tunnel!
  const clients: [TunnelClient, TunnelClient] = [
    openSshClient(context),
    validation ? openSshClient(context, 'OpenSSH again (harness check)') : actionClient(context)
  ]
  const samples = new Map(clients.map(client => [client, emptySamples()]))
  try {
    // Time to ready: one warm-up open each (not counted), then READY_RUNS each, alternating.
    for (let run = -1; run < READY_RUNS; run++) {
      for (const client of inTurn(clients, run + 1)) {
        const tunnel = await client.open(app.port)
        await tunnel.close()
        if (run < 0) continue
        samples.get(client)!.ready.push(tunnel.readyMs)
        samples.get(client)!.recipe.push(tunnel.provisionMs + tunnel.readyMs)
      }
    }
    log(`tunnel: time to ready measured (${READY_RUNS} opens per client)`)
    // Under load: a fresh tunnel per round, downloads, then the small requests, then memory.
    for (let round = 0; round < LOAD_ROUNDS; round++) {
      for (const client of inTurn(clients, round)) {
        const own = samples.get(client)!
        const tunnel = await client.open(app.port)
        try {
          for (let i = 0; i < DOWNLOADS_PER_ROUND; i++) {
            own.throughput.push(await downloadThroughput(frontPort, tunnel.host))
          }
          own.latency.push(...(await smallRequestTimes(frontPort, tunnel.host, SMALL_REQUESTS)))
          const rss = await residentKib(tunnel.pid)
          if (rss === undefined)
            throw new Error(`bench: ${client.label}: process ${tunnel.pid} is gone`)
          own.rssKib.push(rss)
        } finally {
          const line = await tunnel.close()
          if (line !== undefined) own.postLine = line
        }
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
    ready: round(candidate.readyMedianMs / yardstick.readyMedianMs, 3),
    readyVsRecipe:
      validation || yardstick.recipeReadyMedianMs === undefined
        ? null
        : round(candidate.readyMedianMs / yardstick.recipeReadyMedianMs, 3),
    throughput: round(candidate.throughputMedianMBps / yardstick.throughputMedianMBps, 3),
    latency: round(candidate.latencyMedianMs / yardstick.latencyMedianMs, 3)
  }
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
          ready: ratios.ready <= TUNNEL_TARGETS.readyRatio,
          readyVsRecipe: (ratios.readyVsRecipe ?? Infinity) <= TUNNEL_TARGETS.readyRatio,
          throughput: ratios.throughput >= TUNNEL_TARGETS.throughputRatio,
          latency: ratios.latency <= TUNNEL_TARGETS.latencyRatio,
          rss: candidate.rssMaxMb <= TUNNEL_TARGETS.rssMb
        }
  }
  return results
}

// ---------------------------------------------------------------- report

const verdict = (ok: boolean | undefined) => (ok === undefined ? '' : ok ? 'PASS' : 'FAIL')

export function reportTunnel(results: TunnelResults, previous?: TunnelResults): string {
  const { yardstick: a, candidate: b, ratios, pass } = results
  const lines: string[] = []
  const out = (line = '') => lines.push(line)
  out()
  out(
    `tunnel: ${b.label} vs ${a.label}, one stand-in, ${results.runs} opens each for time to ready, ` +
      `${results.loadRounds} sessions each under load (${DOWNLOADS_PER_ROUND} x ${results.downloadBytes / 1024 / 1024} MiB, ${results.smallRequests} small requests)`
  )
  if (results.validation) {
    out(
      '  harness check: the action has no expose input here, so OpenSSH runs on both sides; no verdict'
    )
  }
  const row = (
    name: string,
    left: string,
    right: string,
    ratio: number | null,
    target: string,
    ok: boolean | undefined
  ) =>
    out(
      `  ${name.padEnd(30)}${left.padStart(12)} ${right.padStart(12)}   ${ratio === null ? '' : `${ratio.toFixed(3)}x`.padEnd(8)} ${target.padEnd(12)} ${verdict(ok)}`
    )
  out(
    `  ${''.padEnd(30)}${b.label.slice(0, 12).padStart(12)} ${a.label.slice(0, 12).padStart(12)}   ratio`
  )
  const ms = (value: number) => `${value.toFixed(1)} ms`
  row(
    'time to ready (median)',
    ms(b.readyMedianMs),
    ms(a.readyMedianMs),
    ratios.ready,
    '<= 1.5x',
    pass?.ready
  )
  if (a.recipeReadyMedianMs !== undefined && !results.validation) {
    row(
      '  vs main + ssh -f (recipe)',
      ms(b.readyMedianMs),
      ms(a.recipeReadyMedianMs),
      ratios.readyVsRecipe,
      '<= 1.5x',
      pass?.readyVsRecipe
    )
  }
  const mbps = (value: number) => `${value.toFixed(1)} MB/s`
  row(
    'throughput, 50 MiB (median)',
    mbps(b.throughputMedianMBps),
    mbps(a.throughputMedianMBps),
    ratios.throughput,
    '>= 0.8x',
    pass?.throughput
  )
  row(
    'latency, small GET (median)',
    `${b.latencyMedianMs.toFixed(2)} ms`,
    `${a.latencyMedianMs.toFixed(2)} ms`,
    ratios.latency,
    '<= 1.25x',
    pass?.latency
  )
  row(
    '  p90, for context',
    `${b.latencyP90Ms.toFixed(2)} ms`,
    `${a.latencyP90Ms.toFixed(2)} ms`,
    null,
    '',
    undefined
  )
  row(
    'RSS after load (max)',
    `${b.rssMaxMb.toFixed(1)} MB`,
    `${a.rssMaxMb.toFixed(1)} MB`,
    null,
    '<= 100 MB',
    pass?.rss
  )
  if (b.postLine !== undefined) out(`  post step's tunnel line: ${b.postLine}`)
  if (pass !== null) {
    const values = Object.values(pass)
    out(`  tunnel targets: ${values.filter(Boolean).length} of ${values.length} pass`)
  }
  if (previous && !previous.validation && !results.validation) {
    out(
      `  previous run: ready ${previous.ratios.ready}x, throughput ${previous.ratios.throughput}x, ` +
        `latency ${previous.ratios.latency}x, RSS ${previous.candidate.rssMaxMb} MB`
    )
  }
  return lines.join('\n')
}

// `tsx bench/tunnel.ts`: this part alone, printed, results.json left as it is.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const results = await benchTunnel(line => console.error(line))
  console.log(reportTunnel(results))
  console.log(`\n${JSON.stringify(results, null, 2)}`)
}
