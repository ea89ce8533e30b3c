/**
 * One load round of the tunnel benchmark, in pairs: both clients' tunnels open at once, then
 * each 50 MiB download and each batch of small GETs is timed through one tunnel and at once
 * through the other, in ABBA order (bench/paired.ts). A pair's two figures are taken seconds
 * apart, so another job's burst on the machine lands on both or on neither; the throughput and
 * latency verdicts are the medians of those pairs' ratios. Then each tunnel's RSS, its 100
 * connections at once, and its close.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { batchMedians, abbaOrder } from './paired.js'
import { residentKib, type OpenTunnel, type TunnelClient } from './tunnel-clients.js'
import {
  CONCURRENT_CONNECTIONS,
  DOWNLOADS_PER_ROUND,
  LATENCY_BATCH,
  REQUESTS_PER_CONCURRENT_CONNECTION,
  type Measurement,
  type Samples
} from './tunnel-figures.js'
import { downloadThroughput, keepAliveLoad, smallRequestTimes } from './tunnel-load.js'

/** Before reading RSS after a load: the last answers leave, both clients wait the same. */
const SETTLE_MS = 1000

/** Runs one measurement; a failure is recorded for the report instead of ending the benchmark. */
export async function attempt<T>(
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

export async function rssKib(tunnel: OpenTunnel): Promise<number> {
  await sleep(SETTLE_MS)
  const kib = await residentKib(tunnel.pid)
  if (kib === undefined) throw new Error(`process ${tunnel.pid} is gone`)
  return kib
}

export interface PairedSide {
  client: TunnelClient
  samples: Samples
}

interface OpenSide extends PairedSide {
  tunnel: OpenTunnel
}

/**
 * Times `measure` through each open tunnel, in the pair's ABBA order, and appends each side's
 * figure (undefined when it failed) at the same index of its series.
 */
async function timePair(
  sides: OpenSide[],
  index: number,
  what: Measurement,
  measure: (side: OpenSide) => Promise<number>,
  series: (samples: Samples) => (number | undefined)[]
): Promise<void> {
  const figures = new Map<OpenSide, number | undefined>()
  for (const side of abbaOrder(sides, index)) {
    figures.set(side, await attempt(side.samples, what, () => measure(side)))
  }
  for (const side of sides) series(side.samples).push(figures.get(side))
}

export async function closeTunnel(own: Samples, tunnel: OpenTunnel): Promise<void> {
  const closed = await attempt(own, 'close', () => tunnel.close())
  if (closed?.postLine !== undefined) own.postLine = closed.postLine
  if (closed?.harEntries !== undefined) own.harEntries = closed.harEntries
}

/** What each side does alone after the pairs: its RSS, then 100 connections at once. */
async function aloneUnderLoad({ samples: own, tunnel }: OpenSide, frontPort: number) {
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

/**
 * Round `round` of the load: opens both tunnels (ABBA), times DOWNLOADS_PER_ROUND downloads and
 * `smallRequests` / LATENCY_BATCH batches of small GETs in pairs, then each side alone.
 */
export async function pairedLoadRound(
  pair: [PairedSide, PairedSide],
  round: number,
  appPort: number,
  frontPort: number,
  smallRequests: number
): Promise<void> {
  const open: OpenSide[] = []
  try {
    for (const side of abbaOrder(pair, round)) {
      const tunnel = await attempt(side.samples, 'open', () => side.client.open(appPort))
      if (tunnel !== undefined) open.push({ ...side, tunnel })
    }
    // A pair needs both sides: with one tunnel missing, its failure is the round's figure.
    if (open.length < pair.length) return
    const sides = pair.map(side => open.find(o => o.client === side.client)!)
    let index = round * DOWNLOADS_PER_ROUND
    for (let i = 0; i < DOWNLOADS_PER_ROUND; i++) {
      await timePair(
        sides,
        index++,
        'download',
        ({ tunnel }) => downloadThroughput(frontPort, tunnel.host),
        samples => samples.throughput
      )
    }
    const batches = Math.floor(smallRequests / LATENCY_BATCH)
    index = round * batches
    for (let i = 0; i < batches; i++) {
      await timePair(
        sides,
        index++,
        'small requests',
        async ({ tunnel, samples }) => {
          const times = await smallRequestTimes(frontPort, tunnel.host, LATENCY_BATCH)
          samples.latency.push(...times)
          return batchMedians(times, LATENCY_BATCH)[0]
        },
        samples => samples.latencyBatchMedians
      )
    }
    for (const side of abbaOrder(sides, round)) await aloneUnderLoad(side, frontPort)
  } finally {
    for (const side of open) await closeTunnel(side.samples, side.tunnel)
  }
}
