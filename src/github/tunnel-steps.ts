/**
 * The tunnel's part of the main and post steps: the runner I/O around process.ts. Loaded only
 * when a step has a tunnel (main with `expose`, post with a saved tunnel), so a step without
 * one loads nothing new.
 */
import * as core from '@actions/core'
import { dirname, join } from 'node:path'
import { ExplainedError } from '../core/errors.js'
import { describeUnexpected } from '../core/text/describe-error.js'
import { printable } from '../core/text/printable.js'
import type { MainSettings } from '../core/settings/inputs.js'
import type { TunnelLogin } from '../core/kinds/kind.js'
import type { RunnerWrites } from './publish.js'
import { clearTunnel, loadTunnel, saveTunnel } from './state.js'
import type { TunnelSettings } from '../core/settings/expose.js'
import { tunnelRoot } from '../core/tunnel/files.js'
import { tunnelFiles } from '../core/tunnel/protocol.js'
import { launchKeeper, type LaunchedKeeper } from '../core/tunnel/launch.js'
import { formatStatsLine } from '../core/tunnel/stats-line.js'
import { stopTunnel, type StopOptions } from '../core/tunnel/stop.js'
import { targetOf, urlsFor } from '../core/tunnel/urls.js'

/** How main starts the keeper; tests run the TypeScript source through a loader instead. */
export interface KeeperLaunch {
  keeperPath: string
  execArgv?: string[]
}

/** The bundle's keeper sits next to the running dist/index.cjs (process.argv[1]). */
export function bundledKeeper(): KeeperLaunch {
  return { keeperPath: join(dirname(process.argv[1]), 'tunnel', 'index.cjs') }
}

/** Main's tunnel: its process started, waiting for the credential. */
export interface PreparedTunnel {
  /** Hands the credential to the process, waits for every forward, then publishes the URLs. */
  open(login: TunnelLogin, settings: MainSettings, writes: RunnerWrites): Promise<void>
  /** Ends the process if it was never opened; does nothing once it was. */
  abandon(): Promise<void>
}

/** Main, before it asks for the credential: the keeper process starts and waits for it. */
export function prepareTunnel(
  tunnel: TunnelSettings,
  launch: KeeperLaunch = bundledKeeper()
): PreparedTunnel {
  let keeper: LaunchedKeeper
  try {
    keeper = launchKeeper({ ...launch, runnerTemp: tunnelRoot() })
  } catch (error) {
    throw new ExplainedError(
      `Could not start the tunnel process: ${describeUnexpected(error)}. ` +
        'Check that RUNNER_TEMP is writable and that the runner may start processes; no credential was requested.'
    )
  }
  // Saved before the credential is asked for: a main that dies from here on (a step timeout)
  // still leaves post able to find and stop the process.
  if (keeper.saved) saveTunnel(keeper.saved)
  return {
    open: (login, settings, writes) => openTunnel(login, settings, tunnel, keeper, writes),
    abandon: async () => {
      await keeper.abandon()
      // Never ready: abandon or the failed start ended it, and post has nothing to stop.
      if (!keeper.ready) clearTunnel()
    }
  }
}

/**
 * Main: configure the launched keeper, wait for every forward, then publish the URLs (to
 * `writes`, which main holds back until the whole step has succeeded).
 */
async function openTunnel(
  login: TunnelLogin,
  settings: MainSettings,
  tunnel: TunnelSettings,
  keeper: LaunchedKeeper,
  writes: RunnerWrites
): Promise<void> {
  // Before the keeper logs in: a URL that cannot work is no reason to open the tunnel.
  const urls = urlsFor(tunnel, targetOf(login))
  const names = tunnel.entries.map(e => `${e.name} (${e.host}:${e.port})`).join(', ')
  core.info(`Opening the tunnel to ${login.host}:${login.port} for ${names}`)
  const started = await keeper.start({
    host: login.host,
    port: login.port,
    user: login.user,
    // A token is the SSH password; an ssh-key credential logs in with its private key file,
    // which the keeper reads itself: the key never crosses the IPC channel.
    ...(login.secret.type === 'password'
      ? { token: login.secret.token }
      : { privateKeyPath: login.secret.path }),
    entries: tunnel.entries,
    hostKeyPins: tunnel.hostKeyPins,
    ...(login.expiresAt && { expiresAt: login.expiresAt }),
    attemptTimeoutMs: settings.http.timeoutSeconds * 1000,
    maxAttempts: settings.http.maxAttempts
  })
  if (keeper.saved) saveTunnel({ ...keeper.saved, started: true })
  if (tunnel.hostKeyPins.length === 0) {
    core.notice(
      `The tunnel server's host key is ${started.fingerprint}; it was accepted because tunnel-host-key is empty. ` +
        `To refuse any other key, set tunnel-host-key: ${started.fingerprint}`
    )
  }
  for (const [name, url] of Object.entries(urls)) core.info(`Exposed ${name}: ${url}`)
  core.info(`The tunnel runs until the job ends (process ${started.pid}, log ${started.logPath}).`)
  if (login.kind === 'free') {
    core.info(
      'The credential is free, so the tunnel ends when the credential does: after 5 minutes (limits.max_uptime_minutes)' +
        `${login.expiresAt ? `, at ${login.expiresAt}` : ''}.`
    )
  }
  const first = Object.values(urls)[0]
  writes.setOutput('url', first)
  writes.setOutput('urls', JSON.stringify(urls))
  if (settings.exportEnv) writes.exportVariable(`${settings.envPrefix}_TUNNEL_URL`, first)
  writes.summaryTable(
    'the tunnel URLs to the job summary',
    'Tunnel URLs',
    ['Name', 'URL'],
    Object.entries(urls)
  )
}

/** Post: stop the tunnel main started, and say what it did. Never throws. */
export async function closeTunnel(options: StopOptions = {}): Promise<void> {
  const saved = loadTunnel()
  if (saved === undefined) return
  try {
    const result = await stopTunnel(saved, options)
    // The record's text comes from a file anyone in the job could write: cleaned and cut short.
    if (result.died) {
      core.warning(
        `The tunnel process ended during the job, at ${printable(result.died.at, 60)}: ${printable(result.died.reason, 300)}. Its log is ${tunnelFiles(saved.dir).logPath}.`
      )
    }
    if (result.recordMissing) {
      core.warning(
        `The tunnel process ${saved.pid} was stopped, but its directory ${saved.dir} could not be used (${result.recordMissing}), so its log and counters are lost. ` +
          'Check whether a step of the job deletes or replaces files in RUNNER_TEMP.'
      )
    }
    if (result.unproven) {
      core.warning(
        `The tunnel process ${saved.pid} was asked to stop but not made to: ${result.unproven}, so no signal was sent in case the pid now belongs to another process. ` +
          'If the tunnel URL still answers, end the process by hand; on a hosted runner the job end does it.'
      )
    }
    if (result.killed) {
      core.warning(
        `The tunnel process ${saved.pid} did not stop within 5 s of being asked, so it was killed.`
      )
    }
    if (result.stats) {
      const endedAt = result.stats.endedAt ? Date.parse(result.stats.endedAt) : Date.now()
      core.info(formatStatsLine(result.stats, endedAt))
    }
  } catch (error) {
    core.warning(`Could not stop the tunnel process ${saved.pid}: ${describeUnexpected(error)}`)
  }
}
