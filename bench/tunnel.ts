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
 * Opens alternate between the clients (A B, then B A), so drift in the machine hits all alike.
 *
 * Until the action has an `expose` input, the candidate is OpenSSH again, which checks the
 * harness (both sides should come out alike) and reports no verdict. BENCH_TUNNEL_CANDIDATE=
 * openssh forces that. Environment: BENCH_TUNNEL_RUNS (opens per client for time to ready,
 * default 20: a fresh ssh login takes either about 25 or about 65 ms here, and the median of
 * fewer flips between the two), BENCH_TUNNEL_LOAD_ROUNDS (sessions per client under load,
 * default 2).
 */
import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { repoRoot } from '../scripts/runner.js'
import { readActionDefinition } from '../scripts/runner/action-yml.js'
import { startCredentialService } from '../service/server.js'
import { round } from './numbers.js'
import type { BenchContext, BenchSection } from './section.js'
import {
  actionClient,
  openSshClient,
  residentKib,
  type ClientContext,
  type OpenTunnel,
  type TunnelClient
} from './tunnel-clients.js'
import {
  CONCURRENT_CONNECTIONS,
  DOWNLOADS_PER_ROUND,
  emptySamples,
  figures,
  MEMORY_CHECKPOINTS,
  MEMORY_CONNECTIONS,
  IDLE_CONNECTIONS,
  IDLE_HEAD_BYTES,
  REQUESTS_PER_CONCURRENT_CONNECTION,
  TUNNEL_TARGETS,
  type ClientFigures,
  type Measurement,
  type Samples
} from './tunnel-figures.js'
import { idleConnectionsRss } from './tunnel-idle.js'
import {
  downloadThroughput,
  keepAliveLoad,
  smallRequestTimes,
  startBenchApp,
  DOWNLOAD_BYTES
} from './tunnel-load.js'
import { compareTunnel, reportTunnel, tunnelTargets } from './tunnel-report.js'

const READY_RUNS = Number(process.env.BENCH_TUNNEL_RUNS ?? 20)
const LOAD_ROUNDS = Number(process.env.BENCH_TUNNEL_LOAD_ROUNDS ?? 2)
const SMALL_REQUESTS = 200
/** Before reading RSS after a load: the last answers leave, both clients wait the same. */
const SETTLE_MS = 1000

export interface TunnelResults {
  /** True while the candidate is OpenSSH itself: figures only, no verdict. */
  validation: boolean
  runs: number
  loadRounds: number
  downloadBytes: number
  smallRequests: number
  yardstick: ClientFigures
  /** The action with `prove-url: false`: every target is on it. */
  candidate: ClientFigures
  /** The action with the URL proof on (the default): time to ready only, no target. */
  proofOn?: { label: string; readyMedianMs: number; readyVsRecipe: number; failures: number }
  ratios: { readyVsRecipe: number; throughput: number; latency: number }
  targets: typeof TUNNEL_TARGETS
  /** Null in validation mode. */
  pass: Record<
    'readyVsRecipe' | 'throughput' | 'latency' | 'rss' | 'rssGrowth' | 'idleRss' | 'concurrent',
    boolean
  > | null
}

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

/** Each client goes first as often as the others: the order turns by one each round. */
const inTurn = <T>(list: T[], round: number): T[] => {
  const shift = round % list.length
  return [...list.slice(shift), ...list.slice(0, shift)]
}

async function rssKib(tunnel: OpenTunnel): Promise<number> {
  await sleep(SETTLE_MS)
  const kib = await residentKib(tunnel.pid)
  if (kib === undefined) throw new Error(`process ${tunnel.pid} is gone`)
  return kib
}

/** Whether this checkout's action.yml declares `expose` (the action's tunnel has landed). */
function actionCanExpose(): boolean {
  return readActionDefinition(repoRoot).inputs.has('expose')
}

/** One session under load: downloads, small GETs, RSS, then 100 connections at once. */
async function loadSession(own: Samples, tunnel: OpenTunnel, frontPort: number): Promise<void> {
  for (let i = 0; i < DOWNLOADS_PER_ROUND; i++) {
    const mbps = await attempt(own, 'download', () => downloadThroughput(frontPort, tunnel.host))
    if (mbps !== undefined) own.throughput.push(mbps)
  }
  const times = await attempt(own, 'small requests', () =>
    smallRequestTimes(frontPort, tunnel.host, SMALL_REQUESTS)
  )
  own.latency.push(...(times ?? []))
  const rss = await attempt(own, 'memory', () => rssKib(tunnel))
  if (rss !== undefined) own.rssAfterLoadKib.push(rss)
  const total = CONCURRENT_CONNECTIONS * REQUESTS_PER_CONCURRENT_CONNECTION
  const load = await attempt(own, 'concurrent', () =>
    keepAliveLoad(frontPort, tunnel.host, { connections: CONCURRENT_CONNECTIONS, total })
  )
  own.concurrentRequests += total
  own.concurrentTimes.push(...(load?.times ?? []))
  own.concurrentFailures += load?.failures ?? total
  own.firstConcurrentFailure ??= load?.firstFailure
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

async function closeTunnel(own: Samples, tunnel: OpenTunnel): Promise<void> {
  const closed = await attempt(own, 'close', () => tunnel.close())
  if (closed?.postLine !== undefined) own.postLine = closed.postLine
  if (closed?.harEntries !== undefined) own.harEntries = closed.harEntries
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
    service: await startCredentialService({ apiKeys: keys, tunnel: true, tls: bench.tls }),
    nextKey: () => keys[Math.floor(provisions++ / 50)] ?? keys[0]
  }
  const app = await startBenchApp()
  const { frontPort } = context.service.tunnel!
  const logOn = { 'log-requests': 'true' }
  const pair: [TunnelClient, TunnelClient] = [
    openSshClient(context),
    validation
      ? openSshClient(context, 'again (check)')
      : actionClient(context, 'expose', { ...logOn, 'prove-url': 'false' })
  ]
  const proofOn = validation
    ? undefined
    : actionClient(context, 'expose, proof on', { ...logOn, 'prove-url': 'true' })
  const readyClients = proofOn === undefined ? pair : [...pair, proofOn]
  const samples = new Map(readyClients.map(client => [client, emptySamples()]))
  try {
    // Time to ready: one warm-up open each (not counted), then READY_RUNS each, in turn.
    for (let run = -1; run < READY_RUNS; run++) {
      for (const client of inTurn(readyClients, run + 1)) {
        const own = samples.get(client)!
        const tunnel = await attempt(own, 'open', async () => {
          const opened = await client.open(app.port)
          own.requestLogOutput = opened.requestLog !== undefined
          await opened.close()
          return opened
        })
        if (run < 0 || tunnel === undefined) continue
        own.ready.push(tunnel.provisionMs + tunnel.readyMs)
      }
    }
    log(`tunnel: time to ready measured (${READY_RUNS} opens per client)`)
    for (let round = 0; round < LOAD_ROUNDS; round++) {
      for (const client of inTurn(pair, round)) {
        const own = samples.get(client)!
        const tunnel = await attempt(own, 'open', () => client.open(app.port))
        if (tunnel === undefined) continue
        await loadSession(own, tunnel, frontPort)
        await closeTunnel(own, tunnel)
      }
      log(`tunnel: load round ${round + 1} of ${LOAD_ROUNDS} done`)
    }
    for (const client of pair) {
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
  const ratios = {
    readyVsRecipe: round(candidate.readyMedianMs / yardstick.readyMedianMs, 3),
    throughput: round(candidate.throughputMedianMBps / yardstick.throughputMedianMBps, 3),
    latency: round(candidate.latencyMedianMs / yardstick.latencyMedianMs, 3)
  }
  /** No failure on either side: a ratio over partial samples would not be a figure. */
  const clean = (what: Measurement) =>
    ![...yardstick.failures, ...candidate.failures].some(failure => failure.what === what)
  const proof = proofOn === undefined ? undefined : figures(proofOn.label, samples.get(proofOn)!)
  const { memory, concurrent } = candidate
  return {
    validation,
    runs: READY_RUNS,
    loadRounds: LOAD_ROUNDS,
    downloadBytes: DOWNLOAD_BYTES,
    smallRequests: SMALL_REQUESTS,
    yardstick,
    candidate,
    proofOn: proof && {
      label: proof.label,
      readyMedianMs: proof.readyMedianMs,
      readyVsRecipe: round(proof.readyMedianMs / yardstick.readyMedianMs, 3),
      failures: proof.failures.length
    },
    ratios,
    targets: TUNNEL_TARGETS,
    pass: validation
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
