/**
 * The `tunnel` section of `npm run bench` (BENCH_SECTIONS=tunnel runs it alone): the action's
 * `expose` against OpenSSH's `ssh -N -R` (the README recipe), both against one tunnel stand-in
 * in one run, both reaching one local app. The action runs with its request log on
 * (`log-requests: true`, the default), so every figure of it includes the log's cost:
 * - time to ready: the main step with `expose` and `prove-url: false`, until it exits 0, against
 *   the recipe's whole path, main without `expose` and then `ssh -f -N -o ExitOnForwardFailure=yes`;
 *   main with the URL proof on (the default) is timed beside it, without a target;
 * - throughput of a 50 MiB download, and latency (median, p99) of small GETs, each on a new
 *   connection;
 * - 100 connections at once, 10 keep-alive requests each: every request answered, p99;
 * - memory: the tunnel process's RSS after 2,000 and after 10,000 small requests over 20
 *   keep-alive connections in parallel, and the growth between the two (the log streams to disk,
 *   so it must not grow with the requests); the HAR's entries are counted after post; then, on a
 *   fresh tunnel, its RSS with 2,000 idle connections that each hold part of a head (tunnel-idle.ts).
 * Every comparison is paired (bench/paired.ts): opens go A B C, then C B A; under load both
 * tunnels are open at once and each download and each batch of small GETs is timed through one,
 * then the other, in ABBA order. Each ratio is the median of the pairs' ratios, printed with its
 * spread, so a burst of load from another job hits both sides of a pair or neither.
 *
 * Until the action has an `expose` input, the candidate is OpenSSH again, which checks the
 * harness (both sides should come out alike) and reports no verdict. BENCH_TUNNEL_CANDIDATE=
 * openssh forces that. Environment: BENCH_TUNNEL_RUNS (opens per client for time to ready,
 * default 20: a fresh ssh login takes either about 25 or about 65 ms here, and the median of
 * fewer flips between the two), BENCH_TUNNEL_LOAD_ROUNDS (sessions per client under load,
 * default 2), BENCH_TUNNEL_BASELINE=<a checkout with action.yml and dist/> (an A/B run: that
 * checkout's action takes OpenSSH's place, and no target is judged), BENCH_TUNNEL_MEMORY=0
 * (skips the memory and idle sessions, whose targets then read n/a and fail: for measuring the
 * speed figures alone).
 */
import { randomBytes } from 'node:crypto'
import { repoRoot } from '../scripts/runner.js'
import { readActionDefinition } from '../scripts/runner/action-yml.js'
import { startCredentialService } from '../service/server.js'
import { abbaOrder, type RatioSpread } from './paired.js'
import type { BenchContext, BenchSection } from './section.js'
import {
  actionClient,
  openSshClient,
  type ClientContext,
  type OpenTunnel,
  type TunnelClient
} from './tunnel-clients.js'
import {
  emptySamples,
  figures,
  MEMORY_CHECKPOINTS,
  MEMORY_CONNECTIONS,
  IDLE_CONNECTIONS,
  IDLE_HEAD_BYTES,
  pairedRatios,
  TUNNEL_TARGETS,
  type ClientFigures,
  type Measurement,
  type Samples
} from './tunnel-figures.js'
import { idleConnectionsRss } from './tunnel-idle.js'
import { keepAliveLoad, startBenchApp, DOWNLOAD_BYTES } from './tunnel-load.js'
import { attempt, closeTunnel, pairedLoadRound, rssKib } from './tunnel-paired-load.js'
import { compareTunnel, reportTunnel, tunnelTargets } from './tunnel-report.js'

const READY_RUNS = Number(process.env.BENCH_TUNNEL_RUNS ?? 20)
const LOAD_ROUNDS = Number(process.env.BENCH_TUNNEL_LOAD_ROUNDS ?? 2)
const MEMORY_SESSIONS = process.env.BENCH_TUNNEL_MEMORY !== '0'
const SMALL_REQUESTS = 200

export interface TunnelResults {
  /** True while the candidate is OpenSSH itself: figures only, no verdict. */
  validation: boolean
  /** The baseline checkout an A/B run compares with, instead of OpenSSH: no verdict. */
  baseline?: string
  runs: number
  loadRounds: number
  /** False with BENCH_TUNNEL_MEMORY=0: no memory or idle session ran. */
  memorySessions: boolean
  downloadBytes: number
  smallRequests: number
  yardstick: ClientFigures
  /** The action with `prove-url: false`: every target is on it. */
  candidate: ClientFigures
  /** The action with the URL proof on (the default): time to ready only, no target. */
  proofOn?: {
    label: string
    readyMedianMs: number
    readyVsRecipe: number
    spread: RatioSpread
    failures: number
  }
  /** The medians of the paired ratios: the verdicts. */
  ratios: { readyVsRecipe: number; throughput: number; latency: number }
  /** Each ratio's pairs: quartiles and extremes. */
  spreads: { readyVsRecipe: RatioSpread; throughput: RatioSpread; latency: RatioSpread }
  targets: typeof TUNNEL_TARGETS
  /** Null in validation mode. */
  pass: Record<
    'readyVsRecipe' | 'throughput' | 'latency' | 'rss' | 'rssGrowth' | 'idleRss' | 'concurrent',
    boolean
  > | null
}

/** Whether this checkout's action.yml declares `expose` (the action's tunnel has landed). */
function actionCanExpose(): boolean {
  return readActionDefinition(repoRoot).inputs.has('expose')
}

/** With idle connections through the stand-in's raw port to the tunnel's `app` forward. */
async function idleSession(own: Samples, tunnel: OpenTunnel, context: ClientContext) {
  const user = tunnel.host.replace(/^app-/, '').replace(/\.localhost$/, '')
  const port = await context.service.tunnel!.rawPort('app', user)
  const idle = await attempt(own, 'idle', () =>
    idleConnectionsRss(
      port,
      tunnel.host,
      { count: IDLE_CONNECTIONS, headBytes: IDLE_HEAD_BYTES },
      () => rssKib(tunnel)
    )
  )
  own.idleRssKib = idle?.rssKib
  own.idleOpen = idle?.open
}

/** A fresh tunnel: RSS after each of MEMORY_CHECKPOINTS requests over keep-alive connections. */
async function memorySession(own: Samples, tunnel: OpenTunnel, frontPort: number): Promise<void> {
  let sent = 0
  for (const checkpoint of MEMORY_CHECKPOINTS) {
    const load = await attempt(own, 'memory', () =>
      keepAliveLoad(frontPort, tunnel.host, {
        connections: MEMORY_CONNECTIONS,
        total: checkpoint - sent,
        firstIndex: sent
      })
    )
    if (load === undefined) return
    sent = checkpoint
    own.keepAliveTimes.push(...load.times)
    own.keepAliveFailures += load.failures
    const rss = await attempt(own, 'memory', () => rssKib(tunnel))
    if (rss === undefined) return
    own.rssAtCheckpointKib.push(rss)
  }
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
  const keys = Array.from({ length: 6 }, () => `sk_${randomBytes(32).toString('hex')}`)
  let provisions = 0
  const context: ClientContext = {
    node: bench.runtimes[0].path,
    env: { NODE_EXTRA_CA_CERTS: bench.caFile },
    // No edge proxy in front of the front: it would add the same cost to both sides.
    service: await startCredentialService({ apiKeys: keys, tunnel: true, tls: bench.tls }),
    nextKey: () => keys[Math.floor(provisions++ / 50)] ?? keys[0]
  }
  const app = await startBenchApp()
  const { frontPort } = context.service.tunnel!
  const logOn = { 'log-requests': 'true' }
  const baseline = validation ? undefined : process.env.BENCH_TUNNEL_BASELINE
  const pair: [TunnelClient, TunnelClient] = [
    baseline === undefined
      ? openSshClient(context)
      : actionClient(context, 'baseline', { ...logOn, 'prove-url': 'false' }, baseline),
    validation
      ? openSshClient(context, 'again (check)')
      : actionClient(context, 'expose', { ...logOn, 'prove-url': 'false' })
  ]
  const proofOn =
    validation || baseline !== undefined
      ? undefined
      : actionClient(context, 'expose, proof on', { ...logOn, 'prove-url': 'true' })
  const readyClients = proofOn === undefined ? pair : [...pair, proofOn]
  const samples = new Map(readyClients.map(client => [client, emptySamples()]))
  try {
    // Time to ready: one warm-up round (not counted: the first processes of a run pay for the
    // page cache, on both sides), then READY_RUNS rounds, A B C then C B A.
    for (let run = -1; run < READY_RUNS; run++) {
      for (const client of abbaOrder(readyClients, run + 1)) {
        const own = samples.get(client)!
        const tunnel = await attempt(own, 'open', async () => {
          const opened = await client.open(app.port)
          own.requestLogOutput = opened.requestLog !== undefined
          await opened.close()
          return opened
        })
        const ready = tunnel && tunnel.provisionMs + tunnel.readyMs
        if (run >= 0) own.ready.push(ready)
        else own.readyWarmup = ready
      }
    }
    log(`tunnel: time to ready measured (${READY_RUNS} opens per client)`)
    const sides = pair.map(client => ({ client, samples: samples.get(client)! }))
    for (let round = 0; round < LOAD_ROUNDS; round++) {
      await pairedLoadRound([sides[0], sides[1]], round, app.port, frontPort, SMALL_REQUESTS)
      log(`tunnel: load round ${round + 1} of ${LOAD_ROUNDS} done`)
    }
    for (const client of MEMORY_SESSIONS ? pair : []) {
      const own = samples.get(client)!
      const tunnel = await attempt(own, 'open', () => client.open(app.port))
      if (tunnel === undefined) continue
      await memorySession(own, tunnel, frontPort)
      await closeTunnel(own, tunnel)
      log(`tunnel: memory over ${MEMORY_CHECKPOINTS.at(-1)} requests, ${client.label}, done`)
      // A fresh tunnel, so the figure is the idle connections' alone; its HAR is not counted.
      const fresh = await attempt(own, 'open', () => client.open(app.port))
      if (fresh === undefined) continue
      await idleSession(own, fresh, context)
      await attempt(own, 'close', () => fresh.close())
    }
  } finally {
    await app.close()
    await context.service.close()
  }

  const yardstick = figures(pair[0].label, samples.get(pair[0])!)
  const candidate = figures(pair[1].label, samples.get(pair[1])!)
  const spreads = pairedRatios(samples.get(pair[1])!, samples.get(pair[0])!)
  const ratios = {
    readyVsRecipe: spreads.readyVsRecipe.median,
    throughput: spreads.throughput.median,
    latency: spreads.latency.median
  }
  /** No failure on either side: a ratio over partial samples would not be a figure. */
  const clean = (what: Measurement) =>
    ![...yardstick.failures, ...candidate.failures].some(failure => failure.what === what)
  const proof = proofOn === undefined ? undefined : figures(proofOn.label, samples.get(proofOn)!)
  const proofSpread =
    proofOn && pairedRatios(samples.get(proofOn)!, samples.get(pair[0])!).readyVsRecipe
  const { memory, concurrent } = candidate
  return {
    validation,
    ...(baseline === undefined ? {} : { baseline }),
    runs: READY_RUNS,
    loadRounds: LOAD_ROUNDS,
    memorySessions: MEMORY_SESSIONS,
    downloadBytes: DOWNLOAD_BYTES,
    smallRequests: SMALL_REQUESTS,
    yardstick,
    candidate,
    proofOn: proof &&
      proofSpread && {
        label: proof.label,
        readyMedianMs: proof.readyMedianMs,
        readyVsRecipe: proofSpread.median,
        spread: proofSpread,
        failures: proof.failures.length
      },
    ratios,
    spreads,
    targets: TUNNEL_TARGETS,
    pass:
      validation || baseline !== undefined
        ? null
        : {
            readyVsRecipe: clean('open') && ratios.readyVsRecipe <= TUNNEL_TARGETS.readyRatio,
            throughput: clean('download') && ratios.throughput >= TUNNEL_TARGETS.throughputRatio,
            latency: clean('small requests') && ratios.latency <= TUNNEL_TARGETS.latencyRatio,
            rss: clean('memory') && memory.rssMb.at(-1)! <= TUNNEL_TARGETS.rssMb,
            rssGrowth: clean('memory') && memory.growthMb <= TUNNEL_TARGETS.rssGrowthMb,
            idleRss: clean('idle') && candidate.idle.rssMb <= TUNNEL_TARGETS.idleRssMb,
            concurrent:
              clean('concurrent') &&
              concurrent.requests > 0 &&
              concurrent.failures <= TUNNEL_TARGETS.concurrentFailures
          }
  }
}

/** The `tunnel` section of `npm run bench`: figures, PASS/FAIL per target, results.tunnel. */
export const tunnelSection: BenchSection = {
  name: 'tunnel',
  async run(context) {
    const results = await benchTunnel(context, line => process.stderr.write(`bench: ${line}\n`))
    return {
      results: { tunnel: results },
      targets: tunnelTargets(results),
      report: reportTunnel(results).split('\n'),
      compare: previous => compareTunnel(previous.tunnel as TunnelResults | undefined, results)
    }
  }
}
