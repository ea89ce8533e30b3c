/**
 * The tunnel benchmark's report: one row per figure with both clients side by side, each
 * target's verdict, the targets for bench.ts's summary, and the comparison with the previous
 * results.json.
 */
import { change } from './numbers.js'
import { describeSpread, type RatioSpread } from './paired.js'
import type { Target } from './section.js'
import type { TunnelResults } from './tunnel.js'
import {
  CONCURRENT_CONNECTIONS,
  DOWNLOADS_PER_ROUND,
  MEMORY_CHECKPOINTS,
  MEMORY_CONNECTIONS,
  REQUESTS_PER_CONCURRENT_CONNECTION,
  TUNNEL_TARGETS,
  type ClientFigures
} from './tunnel-figures.js'

type Verdicts = NonNullable<TunnelResults['pass']>

const verdict = (ok: boolean | undefined) => (ok === undefined ? '' : ok ? 'PASS' : 'FAIL')
/** A figure with its unit, or n/a when every sample of it failed. */
const shown = (value: number | null | undefined, digits: number, unit: string) =>
  typeof value === 'number' && Number.isFinite(value) ? `${value.toFixed(digits)}${unit}` : 'n/a'
const count = (value: number) => value.toLocaleString('en-US')
const [firstCheckpoint, lastCheckpoint] = MEMORY_CHECKPOINTS

const LIMITS: Record<keyof Verdicts, string> = {
  readyVsRecipe: `<= ${TUNNEL_TARGETS.readyRatio}x`,
  throughput: `>= ${TUNNEL_TARGETS.throughputRatio}x`,
  latency: `<= ${TUNNEL_TARGETS.latencyRatio}x`,
  rss: `<= ${TUNNEL_TARGETS.rssMb} MB`,
  rssGrowth: `<= ${TUNNEL_TARGETS.rssGrowthMb} MB`,
  idleRss: `<= ${TUNNEL_TARGETS.idleRssMb} MB`,
  concurrent: `<= ${TUNNEL_TARGETS.concurrentFailures} lost`
}

/** The candidate's figure for each target, as the summary shows it. */
function targetFigures({ ratios, candidate }: TunnelResults): Record<keyof Verdicts, string> {
  return {
    readyVsRecipe: shown(ratios.readyVsRecipe, 3, 'x'),
    throughput: shown(ratios.throughput, 3, 'x'),
    latency: shown(ratios.latency, 3, 'x'),
    rss: shown(candidate.memory.rssMb.at(-1), 1, ' MB'),
    rssGrowth: shown(candidate.memory.growthMb, 1, ' MB'),
    idleRss: shown(candidate.idle.rssMb, 1, ' MB'),
    concurrent: `${candidate.concurrent.failures} lost`
  }
}

/** bench.ts's summary rows: tunnelReadyVsRecipe, tunnelRss, …; none in validation mode. */
export function tunnelTargets(results: TunnelResults): Record<string, Target> {
  const figures = targetFigures(results)
  const targets: Record<string, Target> = {}
  for (const [name, pass] of Object.entries(results.pass ?? {})) {
    const key = name as keyof Verdicts
    targets[`tunnel${key[0].toUpperCase()}${key.slice(1)}`] = {
      figure: figures[key],
      limit: LIMITS[key],
      pass
    }
  }
  return targets
}

/** Whether the action's request log was on, from main's `request-log` output and the HAR. */
function requestLogState(
  candidate: ClientFigures,
  validation: boolean,
  memorySessions: boolean
): string {
  if (validation) return 'n/a (OpenSSH on both sides)'
  if (candidate.requestLogOutput !== true) {
    return 'NOT ACTIVE: main set no request-log output (the log is not wired on this checkout)'
  }
  if (!memorySessions) return 'on (main set request-log); no memory session (BENCH_TUNNEL_MEMORY=0)'
  const entries = candidate.memory.harEntries
  return `on; the HAR after the memory session holds ${entries === undefined ? 'n/a' : count(entries)} of ${count(lastCheckpoint)} requests`
}

export function reportTunnel(results: TunnelResults): string {
  const { yardstick: a, candidate: b, ratios, pass } = results
  const lines: string[] = []
  const out = (line = '') => lines.push(line)
  const mib = results.downloadBytes / 1024 / 1024
  out()
  out(
    `tunnel: ${b.label} vs ${a.label}, one stand-in; ${results.runs} opens each for time to ready, ` +
      `${results.loadRounds} sessions each under load (${DOWNLOADS_PER_ROUND} x ${mib} MiB, ${results.smallRequests} small GETs, ` +
      `${CONCURRENT_CONNECTIONS} connections x ${REQUESTS_PER_CONCURRENT_CONNECTION}), one memory session each`
  )
  out(`  request log: ${requestLogState(b, results.validation, results.memorySessions)}`)
  if (results.baseline !== undefined) {
    out(`  A/B run: the yardstick is the action of ${results.baseline}; no verdict`)
  }
  if (results.validation) {
    out(
      '  harness check: the action has no expose input here, so OpenSSH runs on both sides; no verdict'
    )
  }
  const row = (
    name: string,
    [left, right, digits, unit]: [number | undefined, number | undefined, number, string],
    ratio: number | null,
    target: keyof Verdicts | null
  ) =>
    out(
      `  ${name.padEnd(34)}${shown(left, digits, unit).padStart(12)} ${shown(right, digits, unit).padStart(12)}` +
        `   ${(ratio === null ? '' : shown(ratio, 3, 'x')).padEnd(8)} ${(target === null ? '' : LIMITS[target]).padEnd(11)} ` +
        verdict(target === null ? undefined : pass?.[target])
    )
  out(
    `  ${''.padEnd(34)}${b.label.slice(0, 12).padStart(12)} ${a.label.slice(0, 12).padStart(12)}   ratio`
  )
  row(
    'time to ready vs the recipe',
    [b.readyMedianMs, a.readyMedianMs, 1, ' ms'],
    ratios.readyVsRecipe,
    'readyVsRecipe'
  )
  const spreadLine = (spread: RatioSpread) => out(`  ${''.padEnd(34)}${describeSpread(spread)}`)
  out(
    `  ${''.padEnd(34)}(median of paired ratios; prove-url: false; the recipe: main, then ssh -f)`
  )
  spreadLine(results.spreads.readyVsRecipe)
  row(
    '  first open (warm-up, not counted)',
    [b.readyWarmupMs, a.readyWarmupMs, 1, ' ms'],
    null,
    null
  )
  if (results.proofOn !== undefined) {
    const proof = results.proofOn
    row(
      '  with the URL proof on',
      [proof.readyMedianMs, a.readyMedianMs, 1, ' ms'],
      proof.readyVsRecipe,
      null
    )
    out(
      `  ${''.padEnd(34)}(no target${proof.failures > 0 ? `; ${proof.failures} opens failed` : ''})`
    )
    spreadLine(proof.spread)
  }
  row(
    `throughput, ${mib} MiB (median)`,
    [b.throughputMedianMBps, a.throughputMedianMBps, 1, ' MB/s'],
    ratios.throughput,
    'throughput'
  )
  spreadLine(results.spreads.throughput)
  row(
    'latency, small GET (median)',
    [b.latencyMedianMs, a.latencyMedianMs, 2, ' ms'],
    ratios.latency,
    'latency'
  )
  out(`  ${''.padEnd(34)}(ratio: median of paired ratios of batch medians)`)
  spreadLine(results.spreads.latency)
  row('  p99', [b.latencyP99Ms, a.latencyP99Ms, 2, ' ms'], null, null)
  row(
    `${CONCURRENT_CONNECTIONS} connections at once: lost`,
    [b.concurrent.failures, a.concurrent.failures, 0, ''],
    null,
    'concurrent'
  )
  out(`  ${''.padEnd(34)}(of ${count(b.concurrent.requests)} requests each)`)
  row('  median', [b.concurrent.medianMs, a.concurrent.medianMs, 2, ' ms'], null, null)
  row('  p99', [b.concurrent.p99Ms, a.concurrent.p99Ms, 2, ' ms'], null, null)
  const rssAt = (figures: ClientFigures, i: number) => figures.memory.rssMb[i]
  row(
    `RSS after ${count(firstCheckpoint)} requests`,
    [rssAt(b, 0), rssAt(a, 0), 1, ' MB'],
    null,
    null
  )
  row(
    `RSS after ${count(lastCheckpoint)} requests`,
    [rssAt(b, 1), rssAt(a, 1), 1, ' MB'],
    null,
    'rss'
  )
  row(
    '  growth between the two',
    [b.memory.growthMb, a.memory.growthMb, 1, ' MB'],
    null,
    'rssGrowth'
  )
  out(`  ${''.padEnd(34)}(${MEMORY_CONNECTIONS} keep-alive connections in parallel)`)
  row(
    '  keep-alive request p99',
    [b.memory.keepAliveP99Ms, a.memory.keepAliveP99Ms, 2, ' ms'],
    null,
    null
  )
  row(
    `RSS, ${count(b.idle.connections)} idle connections`,
    [b.idle.rssMb, a.idle.rssMb, 1, ' MB'],
    null,
    'idleRss'
  )
  out(
    `  ${''.padEnd(34)}(each holding ${b.idle.headBytes / 1024} KiB of a head; open when read: ${count(b.idle.open)} / ${count(a.idle.open)})`
  )
  const maxOf = (values: number[]) => (values.length === 0 ? NaN : Math.max(...values))
  row(
    'RSS after downloads (max)',
    [maxOf(b.rssAfterLoadMb), maxOf(a.rssAfterLoadMb), 1, ' MB'],
    null,
    null
  )
  if (b.postLine !== undefined) out(`  post step's tunnel line: ${b.postLine}`)
  for (const client of [b, a]) {
    const counted = new Map<string, number>()
    for (const { what, message } of client.failures) {
      const key = `${what}: ${message}`
      counted.set(key, (counted.get(key) ?? 0) + 1)
    }
    for (const [key, times] of counted) out(`  ${client.label} failed ${times}x, ${key}`)
    if (client.concurrent.firstFailure !== undefined) {
      out(`  ${client.label}, first lost request: ${client.concurrent.firstFailure}`)
    }
  }
  if (pass !== null) {
    const values = Object.values(pass)
    out(`  tunnel targets: ${values.filter(Boolean).length} of ${values.length} pass`)
  }
  return lines.join('\n')
}

/** The ratios and the keeper's memory against the previous results.json, when both judged the action. */
export function compareTunnel(
  previous: TunnelResults | undefined,
  results: TunnelResults
): string[] {
  if (previous === undefined || previous.validation || results.validation) return []
  const before = (figures: ClientFigures | undefined) => figures?.memory?.rssMb?.at(-1)
  return [
    ...change(
      'tunnel ready / recipe',
      previous.ratios?.readyVsRecipe,
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
    ...change(
      `tunnel RSS, ${count(lastCheckpoint)} req`,
      before(previous.candidate),
      results.candidate.memory.rssMb.at(-1) ?? NaN,
      'MB'
    )
  ]
}
