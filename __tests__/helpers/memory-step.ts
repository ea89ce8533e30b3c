/**
 * Main and post of the core through the in-memory host, seen as a user sees a step: the failure,
 * the log's lines by kind, the masks, what later steps get, and what was saved for post. Options
 * are named as the action names its inputs, so messages read as they do on GitHub. The core is
 * loaded on the first run, so a test file may load nock before @actions/http-client loads.
 */
import { rmSync } from 'node:fs'
import type { RevokeOutcome } from '../../src/core/outcome.js'
import { logLines, memoryHost, type MemoryHost, type MemoryHostOptions } from './memory-host.js'

export interface CoreStep extends MemoryHost {
  failed: boolean
  /** The step's one failure message, as a host would report it; empty when it succeeded. */
  errors: string[]
  infos: string[]
  notices: string[]
  warnings: string[]
  /** Every line of the log (info, notice, warning) in order, then the failure: never a mask. */
  lines: string[]
  /** Every cell of every summary table. */
  cells: string[]
}

/** Options named as the action names its inputs. */
export const inputLabel = (name: string): string => `input ${name}`
const temps: string[] = []

afterAll(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function hostWith(options: Record<string, string>, more: MemoryHostOptions): MemoryHost {
  const host = memoryHost({ label: inputLabel, ...more, options })
  if (more.tempRoot === undefined) temps.push(host.tempRoot)
  return host
}

/** The host as a step's user sees it, with the step's failure if it failed. */
export function stepOf(host: MemoryHost, failure?: string): CoreStep {
  return Object.assign(host, {
    failed: failure !== undefined,
    errors: failure === undefined ? [] : [failure],
    infos: logLines(host, 'info'),
    notices: logLines(host, 'notice'),
    warnings: logLines(host, 'warning'),
    lines: [
      ...host.events
        .filter(event => /^(info|notice|warning) /.test(event))
        .map(event => event.slice(event.indexOf(' ') + 1)),
      ...(failure === undefined ? [] : [failure])
    ],
    cells: host.summaries.flatMap(table => table.rows.flat())
  })
}

/** Main: provision with these options. */
export async function provisionWith(
  options: Record<string, string>,
  more: MemoryHostOptions = {}
): Promise<CoreStep> {
  const { provision } = await import('../../src/core/provision.js')
  const host = hostWith(options, more)
  const outcome = await provision(host)
  return stepOf(host, outcome.status === 'failed' ? outcome.message : undefined)
}

/**
 * Post: revoke what `state` records, with these options. Its outcome is shown where a host shows
 * it: a failure by its report (a failed step, a warning, or information), and a record of
 * another kind as a warning.
 */
export async function revokeWith(
  options: Record<string, string>,
  state: Record<string, string>,
  more: MemoryHostOptions = {}
): Promise<CoreStep & { outcome: RevokeOutcome }> {
  const { revoke } = await import('../../src/core/revoke.js')
  const host = hostWith(options, { ...more, state })
  const outcome = await revoke(host)
  const step = stepOf(host)
  const failure = outcome.credential.status === 'failed' ? outcome.credential : undefined
  const reported = (report: string) => (failure?.report === report ? [failure.message] : [])
  const mismatch = outcome.kindMismatch === undefined ? [] : [outcome.kindMismatch]
  return Object.assign(step, {
    outcome,
    failed: failure?.report === 'fail-step',
    errors: reported('fail-step'),
    warnings: [...step.warnings, ...mismatch, ...reported('warning')],
    infos: [...step.infos, ...reported('info')],
    lines: [...step.lines, ...mismatch, ...(failure ? [failure.message] : [])]
  })
}

/** The log's lines, and the failure, that hold the secret (the mask that hides it is no line). */
export function linesLeaking(step: CoreStep, secret: string): string[] {
  return step.lines.filter(line => line.includes(secret))
}
