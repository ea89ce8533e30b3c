/**
 * The tunnel benchmark's targets, the samples it gathers per client, and the figures made of
 * them (bench/tunnel.ts measures, bench/tunnel-report.ts prints).
 */
import { median as medianOf, round } from './numbers.js'
import { comparePaired, roundSpread, type RatioSpread } from './paired.js'

export const TUNNEL_TARGETS = {
  /** The action's time to ready with `prove-url: false` / the recipe's (main, then `ssh -f`), at most. */
  readyRatio: 1.35,
  /** Candidate's throughput / OpenSSH's, at least. */
  throughputRatio: 0.8,
  /** Candidate's median latency / OpenSSH's, at most. */
  latencyRatio: 1.5,
  /** The tunnel process after MEMORY_CHECKPOINTS' last count of logged requests, at most. */
  rssMb: 100,
  /**
   * RSS growth between the two checkpoints, at most. An absolute bound, not a share: the
   * keeper's RSS is mostly Node's and ssh2's fixed cost, and V8 collects garbage when it
   * chooses, so a few MB come and go with the moment of reading; 10 MB over 8,000 requests
   * still catches a log that keeps 1.3 KB or more per request in memory (a HAR entry without
   * bodies is about that size).
   */
  rssGrowthMb: 10,
  /** The tunnel process with IDLE_CONNECTIONS idle connections, each holding part of a head, at most. */
  idleRssMb: 100,
  /** Requests left unanswered with CONCURRENT_CONNECTIONS connections at once. */
  concurrentFailures: 0
}

/** 50 MiB downloads per session under load. */
export const DOWNLOADS_PER_ROUND = 3
/**
 * Small GETs per batch: the latency pairs compare one batch's median through each tunnel. A
 * single GET's time is mostly the scheduler's on a loaded machine; 20 give a median per side.
 */
export const LATENCY_BATCH = 20

/** Logged requests before each memory reading: growth is the change between the two. */
export const MEMORY_CHECKPOINTS = [2_000, 10_000] as const
/** Keep-alive connections in parallel for the memory load. */
export const MEMORY_CONNECTIONS = 20
/** Idle public connections (tunnel-idle.ts), each holding IDLE_HEAD_BYTES of an unfinished head. */
export const IDLE_CONNECTIONS = 2_000
export const IDLE_HEAD_BYTES = 4 * 1024
export const CONCURRENT_CONNECTIONS = 100
export const REQUESTS_PER_CONCURRENT_CONNECTION = 10

export type Measurement =
  'open' | 'download' | 'small requests' | 'memory' | 'idle' | 'concurrent' | 'close'

export interface Failure {
  what: Measurement
  message: string
}

/**
 * The series that are paired are aligned across clients: index i of one client's series and of
 * the other's were timed in the same pair, and undefined marks a side that failed.
 */
export interface Samples {
  /** Time to ready of each counted open, by round. */
  ready: (number | undefined)[]
  /** The warm-up open's time to ready (not counted): what the run's first open costs. */
  readyWarmup?: number
  /** MB/s of each download, by pair. */
  throughput: (number | undefined)[]
  /** Every small GET's time, ms (for the median and p99 shown). */
  latency: number[]
  /** The median of each batch of LATENCY_BATCH small GETs, by pair. */
  latencyBatchMedians: (number | undefined)[]
  /** RSS after the download and latency load of each session, KiB. */
  rssAfterLoadKib: number[]
  /** RSS at each of MEMORY_CHECKPOINTS, KiB (one memory session per client). */
  rssAtCheckpointKib: number[]
  keepAliveTimes: number[]
  keepAliveFailures: number
  /** RSS with IDLE_CONNECTIONS idle connections, KiB, and how many of them were still open. */
  idleRssKib?: number
  idleOpen?: number
  /** Requests in the HAR after the memory session's post (the action, with its log on). */
  harEntries?: number
  /** Whether main set a `request-log` output: the request log is wired and on. */
  requestLogOutput?: boolean
  concurrentTimes: number[]
  concurrentFailures: number
  concurrentRequests: number
  firstConcurrentFailure?: string
  postLine?: string
  failures: Failure[]
}

export const emptySamples = (): Samples => ({
  ready: [],
  throughput: [],
  latency: [],
  latencyBatchMedians: [],
  rssAfterLoadKib: [],
  rssAtCheckpointKib: [],
  keepAliveTimes: [],
  keepAliveFailures: 0,
  concurrentTimes: [],
  concurrentFailures: 0,
  concurrentRequests: 0,
  failures: []
})

const present = (values: (number | undefined)[]) =>
  values.filter((value): value is number => value !== undefined)

/** NaN when every sample of a figure failed: the report then shows n/a, not a number. */
export function median(values: (number | undefined)[]): number {
  const known = present(values)
  return known.length === 0 ? NaN : medianOf(known)
}

/** Nearest-rank percentile; NaN without samples. */
export function percentile(values: number[], share: number): number {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * share) - 1)]
}

const mb = (kib: number) => round((kib * 1024) / 1e6)

export interface ClientFigures {
  label: string
  /** Each open's time to ready, the whole way to a URL (main with expose; or main, then `ssh -f`). */
  readyMs: number[]
  /** The first open of the run, not counted (cold caches); NaN when it failed. */
  readyWarmupMs: number
  readyMedianMs: number
  /** MB/s of each 50 MiB download. */
  throughputMBps: number[]
  throughputMedianMBps: number
  /** Small GETs, each on a new connection, all load rounds together. */
  latencyMedianMs: number
  latencyP99Ms: number
  /** Resident memory (MB, 10^6 bytes) after each session's downloads and small GETs. */
  rssAfterLoadMb: number[]
  /** At MEMORY_CHECKPOINTS, and the change between the first and the last. */
  memory: {
    checkpoints: readonly number[]
    rssMb: number[]
    growthMb: number
    keepAliveMedianMs: number
    keepAliveP99Ms: number
    failures: number
    harEntries?: number
  }
  concurrent: {
    connections: number
    requests: number
    failures: number
    medianMs: number
    p99Ms: number
    firstFailure?: string
  }
  /** With IDLE_CONNECTIONS idle connections, each holding IDLE_HEAD_BYTES of a head. */
  idle: { connections: number; headBytes: number; rssMb: number; open: number }
  /** The action only: whether main set `request-log` (its log is on). */
  requestLogOutput?: boolean
  postLine?: string
  failures: Failure[]
}

export function figures(label: string, samples: Samples): ClientFigures {
  const rssMb = samples.rssAtCheckpointKib.map(mb)
  return {
    label,
    readyMs: present(samples.ready).map(ms => round(ms)),
    readyWarmupMs: round(samples.readyWarmup ?? NaN),
    readyMedianMs: round(median(samples.ready)),
    throughputMBps: present(samples.throughput).map(value => round(value)),
    throughputMedianMBps: round(median(samples.throughput)),
    latencyMedianMs: round(median(samples.latency), 2),
    latencyP99Ms: round(percentile(samples.latency, 0.99), 2),
    rssAfterLoadMb: samples.rssAfterLoadKib.map(mb),
    memory: {
      checkpoints: MEMORY_CHECKPOINTS,
      rssMb,
      growthMb: rssMb.length === 2 ? round(rssMb[1] - rssMb[0]) : NaN,
      keepAliveMedianMs: round(median(samples.keepAliveTimes), 2),
      keepAliveP99Ms: round(percentile(samples.keepAliveTimes, 0.99), 2),
      failures: samples.keepAliveFailures,
      ...(samples.harEntries === undefined ? {} : { harEntries: samples.harEntries })
    },
    idle: {
      connections: IDLE_CONNECTIONS,
      headBytes: IDLE_HEAD_BYTES,
      rssMb: samples.idleRssKib === undefined ? NaN : mb(samples.idleRssKib),
      open: samples.idleOpen ?? 0
    },
    concurrent: {
      connections: CONCURRENT_CONNECTIONS,
      requests: samples.concurrentRequests,
      failures: samples.concurrentFailures,
      medianMs: round(median(samples.concurrentTimes), 2),
      p99Ms: round(percentile(samples.concurrentTimes, 0.99), 2),
      ...(samples.firstConcurrentFailure === undefined
        ? {}
        : { firstFailure: samples.firstConcurrentFailure })
    },
    ...(samples.requestLogOutput === undefined
      ? {}
      : { requestLogOutput: samples.requestLogOutput }),
    ...(samples.postLine === undefined ? {} : { postLine: samples.postLine }),
    failures: samples.failures
  }
}

export interface PairedRatios {
  readyVsRecipe: RatioSpread
  throughput: RatioSpread
  latency: RatioSpread
}

/**
 * The candidate against the yardstick, each figure the median of the paired ratios
 * (bench/paired.ts): time to ready by round, throughput by download pair, latency by pair of
 * batch medians.
 */
export function pairedRatios(candidate: Samples, yardstick: Samples): PairedRatios {
  return {
    readyVsRecipe: roundSpread(comparePaired(candidate.ready, yardstick.ready)),
    throughput: roundSpread(comparePaired(candidate.throughput, yardstick.throughput)),
    latency: roundSpread(
      comparePaired(candidate.latencyBatchMedians, yardstick.latencyBatchMedians)
    )
  }
}
