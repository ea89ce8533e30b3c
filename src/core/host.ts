/**
 * The port: everything a step needs from where it runs. The core reads no environment variable,
 * command line or runner file itself; a host gives it all through this interface. The GitHub
 * Actions host is src/github/host.ts; tests use a small in-memory host.
 */
import type { Clock } from './clock.js'

/** Options by their action input names (`project`, `expose`, ...); '' when not set. */
export interface OptionSource {
  read(name: string): string
  /**
   * How a message names the option where the user sets it: `input project` for the action,
   * `--project` or `SVC_PROJECT` on a command line (a secret: only its variable).
   */
  label(name: string): string
}

/** Where the step's words go. None of them is ever a secret. */
export interface StepLog {
  info(message: string): void
  notice(message: string): void
  warning(message: string): void
}

/** Who runs: names SSH keys (`ci-<repository>-<run id>-<run attempt>`); parts may be missing. */
export interface RunIdentity {
  /** The repository or project path, e.g. `octo/web-shop`. */
  repository?: string
  runId?: string
  runAttempt?: string
}

/**
 * The run that every job of a pipeline belongs to, where the CI system names one that all its jobs
 * see (`share` binds a credential to it); absent on other systems, where `share` is refused.
 */
export interface ShareScope {
  system: 'github' | 'gitlab'
  /** GITHUB_REPOSITORY, or CI_PROJECT_PATH. */
  repository: string
  /** GITHUB_RUN_ID, or CI_PIPELINE_ID: the same in a re-run of failed jobs. */
  runId: string
  /** How messages name the two variables: `GITHUB_REPOSITORY and GITHUB_RUN_ID`. */
  variables: string
}

/**
 * A heading, a few sentences, and a table for the run's summary. Every row has as many cells as
 * there are columns; no columns and no rows: the sentences alone. No cell or sentence is secret.
 */
export interface SummaryTable {
  heading: string
  /** Sentences before the table; none when absent. */
  lines?: string[]
  columns: string[]
  rows: string[][]
}

/** Everything main leaves for later steps, handed over at once when the whole step has succeeded. */
export interface FinalWrites {
  /** With the prefix: `SVC_TUNNEL_TOKEN`. Empty when export-env is false. */
  variables: Record<string, string>
  outputs: Record<string, string>
  summary: SummaryTable[]
}

/** What main saves for post, by name. Not secret; post reads it as untrusted input. */
export interface SavedState {
  save(name: string, value: string): void
  /** '' when nothing was saved under the name. */
  load(name: string): string
}

/** How the tunnel process is started: the script and the environment it may keep. */
export interface KeeperLaunch {
  /** dist/tunnel/index.cjs in the bundle. */
  scriptPath: string
  /** Node options before the script, e.g. a TypeScript loader in tests. */
  execArgv?: string[]
  /** Enough for Node to run, and nothing of the step's secrets. */
  environment: Record<string, string>
  /**
   * Where no runner ends leftover processes (the CLI), the tunnel process ends by itself; absent
   * on GitHub, where the post step stops it and the runner ends what is left of the job.
   */
  ends?: TunnelEnd
}

/** When a tunnel process ends by itself, besides at a stop request. */
export interface TunnelEnd {
  /**
   * At the latest this many minutes after it starts. Absent: at the credential's expiry, or
   * after DEFAULT_TUNNEL_MAX_MINUTES for a credential that has none. Either way, never after
   * the credential's expiry.
   */
  maxMinutes?: number
  /** When this process is gone: `run` passes its own pid, so a killed `run` leaves no tunnel. */
  watchPid?: number
}

/** The tunnel's longest life outside a runner, for a credential that never expires. */
export const DEFAULT_TUNNEL_MAX_MINUTES = 60

export interface Host {
  options: OptionSource
  log: StepLog
  /** Registers secrets with the host's log masking before they could reach any line. */
  mask(secrets: string[]): void
  state: SavedState
  /**
   * Hands later steps the credential, in one operation, once the whole step has succeeded. Throws
   * when they cannot get it: main then stops the tunnel and revokes the credential at once. A
   * summary that cannot be written is only a courtesy lost: the host warns, and does not throw.
   */
  handOver(writes: FinalWrites): void
  /** A directory the host cleans after the job (RUNNER_TEMP on GitHub). */
  tempRoot: string
  /** How messages name it where the user sets it: `RUNNER_TEMP`, `--work-dir`. */
  tempRootName: string
  /**
   * Where the step's outputs reach later steps, as messages name it (`the step's outputs`);
   * absent where they reach none (the CLI without --outputs-file, `run`, the GitLab component),
   * so a message then points to the variables instead.
   */
  outputsName?: string
  run: RunIdentity
  /** Where the CI system names a run every job sees; undefined where `share` cannot work. */
  shareScope?: ShareScope
  clock: Clock
  keeperLaunch(): KeeperLaunch
  /**
   * Where the tunnel whose folder this is writes its request log (a HAR file, the `request-log`
   * output): outside that folder, which post removes. GitHub: beside it in RUNNER_TEMP
   * (requestLogInTempRoot); the CLI: where --request-log says. Post reads no other.
   */
  requestLogPath(tunnelDir: string): string
}
