/**
 * A small in-memory host for tests of the core: options from a record (action.yml's defaults
 * filled in, as the runner does), and everything the core does recorded in order. No runner
 * emulation, no process environment.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readActionDefinition } from '../../scripts/runner/action-yml.js'
import type { Host, SummaryTable, KeeperLaunch, ShareScope } from '../../src/core/host.js'
import { requestLogInTempRoot } from '../../src/core/tunnel/main/request-log-path.js'
import { fakeClock } from './in-process-step.js'

const action = readActionDefinition(fileURLToPath(new URL('../..', import.meta.url)))

export type { SummaryTable }

export interface MemoryHost extends Host {
  /** Everything in order: `mask <secret>`, `info <line>`, `notice ...`, `warning ...`, `hand-over`. */
  events: string[]
  masks: string[]
  /** What later steps would get: written only by the step's one hand-over. */
  env: Record<string, string>
  outputs: Record<string, string>
  summaries: SummaryTable[]
  /** Saved state by name, as post's host would give it back. */
  saved: Record<string, string>
  clock: ReturnType<typeof fakeClock>
}

export interface MemoryHostOptions {
  options?: Record<string, string>
  /** What an earlier main saved. */
  state?: Record<string, string>
  /** A fresh directory under the OS's temp dir unless given. */
  tempRoot?: string
  /** The keeper to start with `expose`; without it, a test that starts one fails. */
  keeperLaunch?: KeeperLaunch
  /** The fake clock's time. */
  now?: string
  /** A clock of the test's own instead of the fake one, e.g. one that really waits. */
  clock?: ReturnType<typeof fakeClock>
  /** Makes the hand-over throw this, as a host whose files cannot be written does. */
  handOverError?: Error
  /** How messages name an option; `--name` unless given. */
  label?: (name: string) => string
  /** How messages name the temp root; `--work-dir` unless given. */
  tempRootName?: string
  /** Where outputs reach later steps, as the host names it (Host.outputsName); none unless given. */
  outputsName?: string
  /** The run every job sees (Host.shareScope), as on GitHub Actions or GitLab CI; none unless given. */
  shareScope?: ShareScope
  /** Where the request log goes, as the CLI's --request-log says; beside the tunnel's folder in the temp root (as on GitHub) unless given. */
  requestLog?: string
}

export function memoryHost(given: MemoryHostOptions = {}): MemoryHost {
  const host: MemoryHost = {
    events: [],
    masks: [],
    env: {},
    outputs: {},
    summaries: [],
    saved: { ...given.state },
    options: {
      read: name => given.options?.[name] ?? action.inputs.get(name)?.default ?? '',
      label: given.label ?? (name => `--${name}`)
    },
    log: {
      info: message => void host.events.push(`info ${message}`),
      notice: message => void host.events.push(`notice ${message}`),
      warning: message => void host.events.push(`warning ${message}`)
    },
    mask: secrets => {
      for (const secret of secrets) {
        host.masks.push(secret)
        host.events.push(`mask ${secret}`)
      }
    },
    handOver: ({ variables, outputs, summary }) => {
      host.events.push('hand-over')
      if (given.handOverError) throw given.handOverError
      Object.assign(host.env, variables)
      Object.assign(host.outputs, outputs)
      host.summaries.push(...summary)
    },
    state: {
      save: (name, value) => void (host.saved[name] = value),
      load: name => host.saved[name] ?? ''
    },
    tempRoot: given.tempRoot ?? mkdtempSync(join(tmpdir(), 'memory-host-')),
    tempRootName: given.tempRootName ?? '--work-dir',
    ...(given.outputsName !== undefined && { outputsName: given.outputsName }),
    run: { repository: 'octo/web-shop', runId: '42', runAttempt: '1' },
    ...(given.shareScope !== undefined && { shareScope: given.shareScope }),
    clock: given.clock ?? fakeClock(given.now),
    keeperLaunch: () => {
      if (!given.keeperLaunch) throw new Error('this memory host starts no tunnel process')
      return given.keeperLaunch
    },
    requestLogPath: tunnelDir =>
      given.requestLog ?? requestLogInTempRoot(host.tempRoot, host.run.runId, tunnelDir)
  }
  return host
}

/** The lines of the step's log (info, notice, warning), without their kind. */
export function logLines(host: MemoryHost, kind: 'info' | 'notice' | 'warning'): string[] {
  return host.events
    .filter(event => event.startsWith(`${kind} `))
    .map(event => event.slice(kind.length + 1))
}
