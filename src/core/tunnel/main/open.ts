/**
 * Main's side of the tunnel: start the keeper before the credential is asked for, then hand it
 * the credential and publish the URLs. Loaded only with `expose` (through on-demand.ts), so a
 * step without a tunnel loads no tunnel code.
 */
import { randomBytes } from 'node:crypto'
import type { Clock } from '../../clock.js'
import { ExplainedError } from '../../errors.js'
import type { FinalWrites, Host, StepLog, TunnelEnd } from '../../host.js'
import type { TunnelLogin } from '../../kinds/kind.js'
import { describeUnexpected } from '../../text/describe-error.js'
import { printablePath } from '../../text/printable.js'
import type { TunnelSettings } from '../../settings/expose.js'
import type { CommonSettings } from '../../settings/types.js'
import type { MainSettings } from '../../kinds/registry.js'
import { appsNotListening, appWarning } from './app-check.js'
import { keeperEnd } from './end-time.js'
import { gateMasks, gateOutputs, gateSummaryRow, makeGateSecret } from './gate-secret.js'
import { launchKeeper, type LaunchedKeeper } from './launch.js'
import {
  clearRequestLog,
  discardRequestLog,
  requestLogFilesFor,
  saveRequestLog
} from '../saved/saved-request-log.js'
import { clearTunnel, saveTunnel } from '../saved/saved-tunnel.js'
import { stopTunnel } from '../post/stop.js'
import { removeTunnelDir } from '../saved/tunnel-dir.js'
import type { ProofRequest } from '../protocol.js'
import { planProof, proofFailureMessage, proveUrls } from './url-proof.js'
import { urlFormFor } from './url-form.js'
import { targetOf, urlsFor } from './urls.js'

/** Main's tunnel: its process started, waiting for the credential. */
export interface PreparedTunnel {
  /** Hands the credential to the process, waits for every forward, then adds the URLs to `writes`. */
  open(login: TunnelLogin, settings: MainSettings, writes: FinalWrites): Promise<void>
  /** Stops the process if it was never opened; does nothing once it was. */
  stopUnused(): Promise<void>
  /**
   * Stops an opened process whose URLs could not be handed over, and removes its folder: the
   * credential it holds is about to be revoked, and nobody knows its URLs.
   */
  close(): Promise<void>
}

/** Main, before it asks for the credential: the keeper process starts and waits for it. */
export function prepareTunnel(tunnel: TunnelSettings, host: Host): PreparedTunnel {
  let keeper: LaunchedKeeper
  // Read once: the keeper's end (set where no runner ends leftover processes) is computed from it.
  const launch = host.keeperLaunch()
  const secrets = runSecrets(tunnel, host)
  try {
    keeper = launchKeeper({
      ...launch,
      tempRoot: host.tempRoot,
      tempRootName: host.tempRootName
    })
  } catch (error) {
    throw new ExplainedError(
      `Could not start the tunnel process: ${describeUnexpected(error)}. ` +
        `Check that ${host.tempRootName} is writable and that the runner may start processes; no credential was requested.`
    )
  }
  // Saved before the credential is asked for: a main that dies from here on (a step timeout)
  // still leaves post able to find and stop the process.
  if (keeper.saved) saveTunnel(host.state, keeper.saved)
  const close = async () => {
    const saved = keeper.saved
    if (!keeper.ready || saved === undefined) return
    const stopped = await stopTunnel({ ...saved, started: true })
    // Still running without proof of its identity: the record stays, so post can try again.
    if (stopped.state === 'alive') return
    removeTunnelDir(saved.dir, saved.dirId)
    discardRequestLog(saved.dir, host.requestLogPath(saved.dir))
    // Both records go: a CLI state file left holding either makes the next provision refuse.
    clearRequestLog(host.state)
    clearTunnel(host.state)
  }
  return {
    open: async (login, settings, writes) => {
      try {
        await openTunnel(login, settings, tunnel, keeper, writes, host, launch.ends, secrets)
      } catch (error) {
        // A tunnel that is up but unproven goes now: its credential is about to be revoked.
        await close()
        // One that never started is gone already: so is the log made for it.
        if (!keeper.ready) discardRequestLog(keeper.dir, host.requestLogPath(keeper.dir))
        throw error
      }
    },
    stopUnused: async () => {
      await keeper.stopUnused()
      // Never ready: stopUnused or the failed start ended it, and post has nothing to stop.
      if (!keeper.ready) clearTunnel(host.state)
    },
    close
  }
}

/** The gate's secret and the proof's key of this run, each present when its option is on. */
interface RunSecrets {
  gateSecret?: string
  proofKey?: string
}

/**
 * Made before the credential is asked for and masked at once, so no line of the step can show
 * them; they reach the keeper only over IPC, and the gate's only the step's outputs besides.
 */
function runSecrets(tunnel: TunnelSettings, host: Host): RunSecrets {
  const gateSecret = tunnel.protect ? makeGateSecret() : undefined
  const proofKey = tunnel.proveUrl ? randomBytes(32).toString('hex') : undefined
  const masks = [
    ...(gateSecret === undefined ? [] : gateMasks(gateSecret)),
    ...(proofKey === undefined ? [] : [proofKey])
  ]
  if (masks.length > 0) host.mask(masks)
  return { gateSecret, proofKey }
}

/**
 * Main: configure the launched keeper, wait for every forward, then add the URLs to `writes`,
 * which main hands over only once the whole step has succeeded.
 */
async function openTunnel(
  login: TunnelLogin,
  settings: MainSettings,
  tunnel: TunnelSettings,
  keeper: LaunchedKeeper,
  writes: FinalWrites,
  { log, state, clock, requestLogPath, outputsName }: Host,
  ends: TunnelEnd | undefined,
  { gateSecret, proofKey }: RunSecrets
): Promise<void> {
  // Before the keeper logs in: a URL that cannot work is no reason to open the tunnel.
  const form = urlFormFor(
    tunnel.urlTemplate,
    login.answerUrl,
    settings.tunnelHost !== undefined,
    settings.optionLabel
  )
  const urls = urlsFor(
    { ...tunnel, urlTemplate: form.template },
    targetOf(login),
    settings.optionLabel,
    tunnel.urlTemplate === ''
  )
  // Said before the proof, so a URL the proof refuses comes with the rule that formed it.
  if (form.fromAnswer) log.notice(`The public URLs are ${form.rule}.`)
  else if (tunnel.urlTemplate === '') log.info(`The public URLs are ${form.rule}.`)
  const names = tunnel.entries.map(e => `${e.name} (${e.host}:${e.port})`).join(', ')
  log.info(`Opening the tunnel to ${login.host}:${login.port} for ${names}`)
  const hostKeyOption = settings.optionLabel('tunnel-host-key')
  const end = keeperEnd(ends, clock.now(), login.expiresAt)
  // The HAR goes where the host says (outside the tunnel's folder), its work files in the folder.
  const requestLog = tunnel.requestLog.enabled
    ? requestLogFilesFor(keeper.dir, requestLogPath(keeper.dir))
    : undefined
  // Every nonce the proof may ask, told to the keeper now: it answers no other.
  const proofRequests = proofKey === undefined ? undefined : planProof(urls)
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
    requestLog: tunnel.requestLog,
    ...(requestLog && { requestLogFiles: requestLog }),
    publicUrls: urls,
    protect: tunnel.protect,
    proveUrl: tunnel.proveUrl,
    ...(gateSecret !== undefined && { gateSecret }),
    ...(proofKey !== undefined && { proofKey, proofRequests }),
    ...(login.expiresAt && { expiresAt: login.expiresAt }),
    attemptTimeoutMs: settings.http.timeoutSeconds * 1000,
    maxAttempts: settings.http.maxAttempts,
    hostKeyOptionName: hostKeyOption,
    exposeOptionName: settings.optionLabel('expose'),
    ...end
  })
  if (keeper.saved) saveTunnel(state, { ...keeper.saved, started: true })
  if (requestLog) saveRequestLog(state, requestLog)
  if (tunnel.hostKeyPins.length === 0) {
    log.notice(
      `The tunnel server's host key is ${started.fingerprint}; it was accepted because ${hostKeyOption} is empty. ` +
        `To refuse any other key, set ${hostKeyOption}: ${started.fingerprint}`
    )
  }
  for (const [name, url] of Object.entries(urls)) log.info(`Exposed ${name}: ${url}`)
  const where = `process ${started.pid}, log ${printablePath(started.logPath)}`
  if (end.endAt === undefined) log.info(`The tunnel runs until the job ends (${where}).`)
  else {
    const watched = end.watchPid === undefined ? '' : `, or once process ${end.watchPid} ends`
    log.info(
      `The tunnel ends by itself at ${end.endAt} at the latest${watched}; revoking the credential stops it sooner (${where}).`
    )
  }
  // The kind knows its own lifetime (a free credential's tunnel ends after 5 minutes).
  if (login.lifetimeNote) log.info(login.lifetimeNote)
  // Readiness: no output until every URL is proven to reach this tunnel.
  const proof = proofKey === undefined ? undefined : { proofKey, requests: proofRequests! }
  try {
    await proveAndCheck(
      tunnel.entries,
      { template: form.template, inputEmpty: tunnel.urlTemplate === '' },
      urls,
      proof,
      settings,
      log,
      clock
    )
  } finally {
    // Proven or not, the keeper answers no proof from now on, and the step may exit.
    started.letGo()
  }
  if (requestLog) {
    log.info(
      `Requests through the tunnel are logged in ${printablePath(requestLog.harPath)} (HAR).`
    )
    writes.outputs['request-log'] = requestLog.harPath
  }
  const first = Object.values(urls)[0]
  writes.outputs.url = first
  writes.outputs.urls = JSON.stringify(urls)
  if (settings.exportEnv) writes.variables[`${settings.envPrefix}_TUNNEL_URL`] = first
  if (gateSecret !== undefined) {
    Object.assign(writes.outputs, gateOutputs(gateSecret, urls))
    if (settings.exportEnv) {
      writes.variables[`${settings.envPrefix}_TUNNEL_GATE_SECRET`] = gateSecret
    }
  }
  writes.summary.push({
    heading: 'Tunnel URLs',
    columns: ['Name', 'URL'],
    rows: [
      ...Object.entries(urls),
      ['URL rule', form.rule],
      gateSummaryRow(tunnel.protect, settings.optionLabel, {
        ...(settings.exportEnv && { variable: `${settings.envPrefix}_TUNNEL_GATE_SECRET` }),
        ...(outputsName !== undefined && { outputsName })
      })
    ]
  })
}

/**
 * Once the keeper is ready: proves each URL (when asked to) and looks for each local app, at
 * once. An app not listening yet is a warning; a URL that does not come back here fails the step.
 */
async function proveAndCheck(
  entries: TunnelSettings['entries'],
  form: { template: string; inputEmpty: boolean },
  urls: Record<string, string>,
  proof: { proofKey: string; requests: ProofRequest[] } | undefined,
  { optionLabel: label, http }: Pick<CommonSettings, 'optionLabel' | 'http'>,
  log: StepLog,
  clock: Clock
): Promise<void> {
  const [failures, silentApps] = await Promise.all([
    proof === undefined
      ? []
      : proveUrls({
          ...proof,
          urls,
          now: () => clock.now(),
          sleep: ms => clock.sleep(ms),
          ...(http.ca !== undefined && { ca: http.ca })
        }),
    appsNotListening(entries)
  ])
  for (const app of silentApps) log.warning(appWarning(app, label))
  if (failures.length > 0) {
    throw new ExplainedError(proofFailureMessage(failures, form.template, label, form.inputEmpty))
  }
  if (proof !== undefined) {
    log.info(`Proved that the URL of ${Object.keys(urls).join(', ')} reaches this tunnel.`)
  }
}
