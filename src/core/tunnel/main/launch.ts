/**
 * The tunnel process as the steps see it. Main starts the keeper detached before it asks for the
 * credential, then sends it its configuration over IPC, waits for ready or a failure, proves the
 * URLs while it still holds the channel, and then lets go so the step can exit.
 * Post stops it (stop.ts), knowing it by what launchKeeper saves: its pid, its start time and
 * its directory, which ends its command line.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, mkdtempSync, openSync } from 'node:fs'
import { join } from 'node:path'
import type { KeeperLaunch } from '../../host.js'
import { directoryId } from '../../owned-dir.js'
import { ACTION_VERSION } from '../../version.js'
import type { SavedTunnel } from '../saved/saved-tunnel.js'
import { startTimeOf } from '../saved/process-identity.js'
import { describeStartFailure, TunnelStartError, type StartOutcome } from './start-failure.js'
import { lastLogLine, removeTunnelDir } from '../saved/tunnel-dir.js'
import {
  readyWaitMs,
  TUNNEL_DIR_PREFIX,
  tunnelFiles,
  type KeeperConfig,
  type KeeperReport,
  type MainMessage,
  type TunnelFiles
} from '../protocol.js'

/** Where post finds the keeper; nothing secret. */
export interface KeeperProcess {
  pid: number
  /** Holds its files (tunnelFiles in protocol.ts). */
  dir: string
}

/** The host's launch (script, Node options, kept environment) and where the keeper's files go. */
export interface LaunchOptions extends KeeperLaunch {
  /** The host's temp root: the keeper's log, stats and stop file go in a fresh directory under it. */
  tempRoot: string
  /** How messages name the temp root where the user sets it. */
  tempRootName: string
}

/** What the keeper is told once the credential is known (its file paths are added here). */
export type KeeperSettings = Omit<KeeperConfig, 'logPath' | 'statsPath' | 'stopPath'>

export interface StartOptions extends LaunchOptions {
  config: KeeperSettings
}

/** A keeper that has started and waits, holding nothing secret, for its configuration. */
export interface LaunchedKeeper {
  /** Undefined when the process could not be started (start() then says why). */
  readonly pid: number | undefined
  /** Its folder (tunnelFiles in protocol.ts), made before the process starts. */
  readonly dir: string
  /** What post needs to find and recognise it (started: false until it is ready). */
  readonly saved: SavedTunnel | undefined
  /** True once start() returned: the process runs on after main, until post stops it. */
  readonly ready: boolean
  /**
   * Sends the configuration and waits until every forward is accepted; on failure neither the
   * process nor its folder is left (the message quotes the log's last line instead).
   */
  start(config: KeeperSettings): Promise<StartedTunnel>
  /** Stops a keeper that was never started (the credential never came), and removes its directory. */
  stopUnused(): Promise<void>
}

export interface StartedTunnel extends KeeperProcess, TunnelFiles {
  fingerprint: string
  /**
   * Tells the keeper the URL proof is over (it answers no nonce after it) and lets go of the
   * process, so the step can exit while it runs on. Call it once the proof is done, whatever
   * its result; a second call does nothing.
   */
  letGo(): void
}

/**
 * A small young generation: the keeper makes short-lived buffers for every SSH packet, and with
 * Node's default V8 collects them late. Measured with the tunnel benchmark (3 x 50 MiB through
 * the tunnel): RSS after the load 165 MB without, 101 MB with, throughput within the noise.
 * --expose-gc lets the keeper collect that young generation every 2 MiB through the tunnel as
 * well (see KeeperIo.collectYoung): RSS after the load 112-126 MB without, 94-105 MB with every
 * 4 MiB, 94 MB with every 2 MiB (one run each: the figure moves by several MB run to run).
 */
const KEEPER_NODE_FLAGS = ['--max-semi-space-size=1', '--expose-gc']

/**
 * Starts the keeper process, which waits for its configuration. Main does this before it asks
 * for the credential, so Node's start and the loading of the tunnel bundle overlap the request
 * instead of following it. The process holds no secret until start(); a main step that goes away
 * before then closes the IPC channel, and the keeper leaves with it (keeper/main.ts).
 */
export function launchKeeper(options: LaunchOptions): LaunchedKeeper {
  const dir = mkdtempSync(join(options.tempRoot, TUNNEL_DIR_PREFIX))
  const paths = tunnelFiles(dir)
  let child: ChildProcess
  let dirId: string
  try {
    dirId = directoryId(dir)
    const log = openSync(paths.logPath, 'a')
    try {
      // The directory ends the command line: unique to this launch and not secret, it lets post
      // tell this process from any other that gets its pid later (identity.ts).
      child = spawn(
        process.execPath,
        [...KEEPER_NODE_FLAGS, ...(options.execArgv ?? []), options.scriptPath, dir],
        {
          detached: true,
          windowsHide: true,
          // Never the step's own stdout/stderr: the runner waits for those pipes to close.
          stdio: ['ignore', log, log, 'ipc'],
          // The host's choice: enough for Node, nothing of the step's secrets.
          env: options.environment
        }
      )
    } finally {
      closeSync(log)
    }
  } catch (error) {
    // Made a moment ago, with no id to check it by: nothing else can be in it yet.
    removeTunnelDir(dir, undefined)
    throw error
  }
  const launched = child
  const startTime = launched.pid === undefined ? undefined : startTimeOf(launched.pid)
  const saved: SavedTunnel | undefined =
    launched.pid === undefined
      ? undefined
      : {
          pid: launched.pid,
          dir,
          dirId,
          ...(startTime !== undefined && { startTime }),
          started: false
        }
  // Listened for from the start: a keeper can die (or fail to spawn) before it is configured.
  const ended = new Promise<StartOutcome>(resolve => {
    // `on`, not `once`: a failed spawn and a failed send can each emit one, and an 'error' with
    // no listener would end main itself.
    launched.on('error', error => resolve({ type: 'died', detail: error.message }))
    launched.once('exit', (code, signal) =>
      resolve({
        type: 'died',
        detail: `the tunnel process exited before it was ready (${signal ?? `exit code ${code}`})`
      })
    )
  })
  let used = false
  let ready = false

  return {
    pid: launched.pid,
    dir,
    saved,
    get ready() {
      return ready
    },
    async start(config) {
      if (used) throw new Error('this tunnel process was already started or stopped')
      used = true
      const waitMs = readyWaitMs(config.attemptTimeoutMs, config.maxAttempts)
      let timer: NodeJS.Timeout | undefined
      const outcome = await Promise.race([
        ended,
        new Promise<StartOutcome>(resolve => {
          timer = setTimeout(
            () =>
              resolve({
                type: 'failed',
                cause: 'timeout',
                detail: `the tunnel process was not ready within ${Math.round(waitMs / 1000)} s`
              }),
            waitMs
          )
          launched.once('message', (report: KeeperReport) => resolve(report))
          const { logPath, statsPath, stopPath } = paths
          const sent = {
            ...config,
            logPath,
            statsPath,
            stopPath,
            toolVersion: ACTION_VERSION
          } satisfies KeeperConfig
          if (launched.connected) launched.send(sent)
        })
      ])
      clearTimeout(timer)
      const pid = launched.pid
      if (outcome.type === 'ready' && pid !== undefined) {
        launched.removeAllListeners()
        // The channel alone no longer keeps main waiting; it stays open while main proves.
        launched.unref()
        launched.channel?.unref()
        // A keeper that dies while main proves must not end main with an unhandled 'error'.
        launched.on('error', () => undefined)
        ready = true
        return {
          pid,
          dir,
          ...paths,
          fingerprint: outcome.fingerprint,
          letGo: () => letGo(launched)
        }
      }
      await killAndWait(launched)
      const lastLine = lastLogLine(dir)
      removeTunnelDir(dir, dirId)
      throw new TunnelStartError(
        describeStartFailure(outcome, lastLine, options.tempRootName, {
          hostKeyOption: config.hostKeyOptionName,
          exposeOption: config.exposeOptionName
        }),
        outcome.type === 'failed' ? outcome.cause : 'died',
        outcome.type === 'ready' ? '' : outcome.detail
      )
    },
    async stopUnused() {
      if (used) return
      used = true
      await killAndWait(launched)
      removeTunnelDir(dir, dirId)
    }
  }
}

/** Starts the keeper and waits until every forward is accepted; on failure no process is left. */
export function startTunnel(options: StartOptions): Promise<StartedTunnel> {
  return launchKeeper(options).start(options.config)
}

/** The step exits while the keeper runs on, detached, until post stops it. */
function letGo(child: ChildProcess): void {
  if (!child.connected) return
  const over: MainMessage = { type: 'proof-over' }
  child.send(over)
  // At once: the keeper takes the channel's close as the same word, should the message be lost.
  child.disconnect()
}

function killAndWait(child: ChildProcess): Promise<void> {
  // No pid: it never started, so no exit will come.
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve()
  }
  return new Promise(resolve => {
    child.once('exit', () => resolve())
    child.kill('SIGKILL')
  })
}
