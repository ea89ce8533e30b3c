/**
 * How long the main step takes to give up: on a 429 with an hour's retry_after (it must fail at
 * once rather than wait), and on a service that never answers (timeout-seconds 1, two attempts).
 * On the runner's Node only.
 */
import { median, ms, pass, round, change } from './numbers.js'
import type { BenchContext, BenchSection } from './section.js'
import { actionEntry, timeStep } from './step-process.js'
import type { RunningService } from '../service/server.js'

const TARGETS = { fail429Ms: 1000, hungMs: 4000 }
const FAIL_RUNS = 5
const HUNG_RUNS = 3

interface FailureTiming {
  node: string
  runs: number
  ms: number[]
  medianMs: number
  maxMs: number
}

async function timeFailure(
  context: BenchContext,
  runs: number,
  fault: Parameters<RunningService['injectFault']>[0],
  extraInputs: Record<string, string>
): Promise<FailureTiming> {
  const { service } = context
  const [runtime] = context.runtimes
  const times: number[] = []
  for (let i = -1; i < runs; i++) {
    service.resetFaults()
    service.injectFault(fault)
    const run = await timeStep({
      node: runtime.path,
      script: actionEntry,
      caFile: context.caFile,
      inputs: {
        'api-key': context.nextApiKey(),
        project: service.seed.project,
        'base-url': service.baseUrl,
        ...extraInputs
      }
    })
    service.resetFaults()
    if (run.exitCode !== 1 || !/::error::/.test(run.stdout)) {
      throw new Error(`bench: expected the step to fail with an ::error::, got:\n${run.stdout}`)
    }
    if (i >= 0) times.push(run.ms)
  }
  return {
    node: runtime.label,
    runs,
    ms: times.map(value => round(value)),
    medianMs: round(median(times)),
    maxMs: round(Math.max(...times))
  }
}

const timingLine = (title: string, timing: FailureTiming, limit: number) =>
  `  ${title.padEnd(29)}${ms(timing.medianMs)}  (max ${timing.maxMs.toFixed(0)} ms, ${timing.runs} runs)` +
  `  target < ${limit} ms  ${pass(timing.medianMs < limit)}`

export const timeToFailSection: BenchSection = {
  name: 'time to fail',
  async run(context) {
    const fail429 = await timeFailure(
      context,
      FAIL_RUNS,
      { kind: '429', retryAfter: 3600, endpoint: 'credential-provision' },
      {}
    )
    const hung = await timeFailure(
      context,
      HUNG_RUNS,
      { kind: 'hang', count: 2, endpoint: 'credential-provision' },
      { 'timeout-seconds': '1', 'max-attempts': '2' }
    )
    return {
      results: { fail429, hung },
      targets: {
        fail429: {
          figure: `${fail429.medianMs.toFixed(1)} ms`,
          limit: `< ${TARGETS.fail429Ms} ms`,
          pass: fail429.medianMs < TARGETS.fail429Ms
        },
        hung: {
          figure: `${hung.medianMs.toFixed(1)} ms`,
          limit: `< ${TARGETS.hungMs} ms`,
          pass: hung.medianMs < TARGETS.hungMs
        }
      },
      report: [
        '',
        `time to fail (${fail429.node}, median of runs, max)`,
        timingLine('429, retry_after 3600 s', fail429, TARGETS.fail429Ms),
        timingLine('hung, timeout 1 s x 2 tries', hung, TARGETS.hungMs)
      ],
      compare: previous => [
        ...change(
          'fail on 429',
          (previous.fail429 as FailureTiming | undefined)?.medianMs,
          fail429.medianMs,
          'ms'
        ),
        ...change(
          'fail on hung service',
          (previous.hung as FailureTiming | undefined)?.medianMs,
          hung.medianMs,
          'ms'
        )
      ]
    }
  }
}
