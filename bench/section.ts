/**
 * What the benchmark's parts share. bench.ts runs each section in turn with one BenchContext
 * (one https service, one key pool, the runtimes), merges the sections' results into
 * bench/results.json and prints their report lines and PASS/FAIL targets. A new measurement is
 * a module exporting a `BenchSection`, added to SECTIONS in bench.ts; BENCH_SECTIONS=name runs
 * it alone.
 */
import type { RunningService } from '../service/server.js'

export interface Runtime {
  /** e.g. "Node 24.21.0" */
  label: string
  path: string
}

export interface BenchContext {
  /** The runner's Node first, then the other runtimes timed for comparison (maybe none). */
  runtimes: Runtime[]
  /** The local credential service, over https with a throw-away certificate. */
  service: RunningService
  /** The certificate's file: give it to every child process as NODE_EXTRA_CA_CERTS. */
  caFile: string
  /** The certificate itself, for requests from the benchmark's own process. */
  ca: string
  /** Key and certificate, for a section that starts a service of its own (e.g. with the tunnel). */
  tls: { key: string; cert: string }
  /** A fresh API key for each provision (the service limits provisions per key). */
  nextApiKey(): string
  /** Counted runs and warm-ups per timed case (BENCH_RUNS, BENCH_WARMUP). */
  runs: number
  warmup: number
}

export interface Target {
  /** What was measured, as the report shows it, e.g. "1.302x", "412.0 ms", "n/a". */
  figure: string
  /** e.g. "<= 1.35x", "< 1000 ms" */
  limit: string
  pass: boolean
}

export interface SectionOutcome {
  /** Merged at the top level of bench/results.json; keep the keys unique across sections. */
  results: Record<string, unknown>
  /** Each target by name; bench.ts prints and counts them. */
  targets: Record<string, Target>
  /** The section's part of the report, targets' PASS/FAIL included. */
  report: string[]
  /** Lines comparing with the previous results.json, given its whole content. */
  compare(previous: Record<string, unknown>): string[]
}

export interface BenchSection {
  name: string
  run(context: BenchContext): Promise<SectionOutcome>
}
