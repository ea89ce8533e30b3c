/**
 * A real edge proxy in front of the stand-in's HTTP front: Debian's `caddy`, the proxy of the
 * real tunnel server's reference deployment, run from a private temporary folder (config,
 * storage, its CA, its HOME) that is removed when it stops. See caddy-config.ts for what it does
 * to each request, and service/README.md, "Edge proxy".
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { X509Certificate, createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect } from 'node:tls'
import { canRun, missingMessage } from '../../scripts/system-packages.js'
import { edgeConfig, usesWildcard } from './caddy-config.js'

/** Where Debian installs Caddy; the same path scripts/system-packages.ts checks. */
export const CADDY_PROGRAM = '/usr/bin/caddy'
const READY_TIMEOUT_MS = 20_000
/** Enough of Caddy's stderr to say why it did not start. */
const STDERR_KEPT_CHARACTERS = 4000

export interface EdgeOptions {
  /** The stand-in's HTTP front, on 127.0.0.1. */
  upstreamPort: number
  /** Public names are `<label>.<publicDomain>`; default `tunnel.localhost`. */
  publicDomain?: string
  /** The name the front receives instead: `<label>.<internalDomain>`; default `tunnel.internal`. */
  internalDomain?: string
  /** Where Caddy is; default /usr/bin/caddy. */
  program?: string
}

export interface RunningEdge {
  /** The loopback port Caddy serves https on (HTTP/2 and HTTP/1.1). */
  port: number
  publicDomain: string
  internalDomain: string
  /** The private folder Caddy runs in (config, storage, CA, HOME); removed by stop(). */
  folder: string
  /** `https://<label>.<publicDomain>:<port>/` */
  urlFor(label: string): string
  /** PEM of the root of Caddy's internal CA: for NODE_EXTRA_CA_CERTS, or ca-file. */
  caFile: string
  /**
   * Base64 SHA-256 of the public keys the edge presents (its wildcard certificate, if any, and
   * the CA's intermediate, which signs every name), for Chromium's --ignore-certificate-errors-spki-list: the browser trusts
   * this edge alone, and still checks every other certificate.
   */
  spkiHashes(): string[]
  /** Stops Caddy and removes its folder. */
  stop(): Promise<void>
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>(resolve => server.close(() => resolve()))
  return port
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

/** Whether a TLS handshake for `name` succeeds against the edge's CA alone. */
function handshakes(port: number, name: string, ca: string): Promise<boolean> {
  return new Promise(resolve => {
    const socket = connect({ host: '127.0.0.1', port, servername: name, ca, ALPNProtocols: ['h2'] })
    socket.setTimeout(2000, () => (socket.destroy(), resolve(false)))
    socket.once('secureConnect', () => (socket.end(), resolve(true)))
    socket.once('error', () => resolve(false))
  })
}

const spkiHash = (pem: string): string =>
  createHash('sha256')
    .update(new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64')

/** The message a test shows when Caddy is missing: the one `npm test` shows for any package. */
export const caddyMissingMessage = (): string => missingMessage(['caddy']) ?? ''

/**
 * Starts Caddy in front of `upstreamPort` and waits until it serves a trusted certificate for
 * the public domain. Throws, with Caddy's own words, when it does not; with the system packages
 * message when Caddy is not installed.
 */
export async function startEdge(options: EdgeOptions): Promise<RunningEdge> {
  const program = options.program ?? CADDY_PROGRAM
  if (!canRun(program)) throw new Error(caddyMissingMessage())
  const publicDomain = options.publicDomain ?? 'tunnel.localhost'
  const internalDomain = options.internalDomain ?? 'tunnel.internal'
  // Private: Caddy's CA key lives here.
  const dir = mkdtempSync(join(tmpdir(), 'stand-in-edge-'))
  const storageDir = join(dir, 'storage')
  const port = await freePort()
  const configPath = join(dir, 'caddy.json')
  let child: ChildProcess | undefined
  let exited: Promise<void> = Promise.resolve()
  let stderr = ''
  const stop = async (): Promise<void> => {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      const killer = setTimeout(() => child?.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(killer)
    }
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    const config = edgeConfig({
      httpsPort: port,
      upstreamPort: options.upstreamPort,
      publicDomain,
      internalDomain,
      storageDir
    })
    writeFileSync(configPath, JSON.stringify(config), { mode: 0o600 })
    // HOME and the XDG folders point inside the run's folder: Caddy writes nothing elsewhere.
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, 'config'),
      XDG_DATA_HOME: join(dir, 'data')
    }
    const started = spawn(program, ['run', '--config', configPath], {
      cwd: dir,
      env,
      stdio: ['ignore', 'ignore', 'pipe']
    })
    child = started
    exited = new Promise(resolve => started.once('exit', () => resolve()))
    started.stderr?.setEncoding('utf8')
    started.stderr?.on('data', (text: string) => {
      stderr = (stderr + text).slice(-STDERR_KEPT_CHARACTERS)
    })
    started.once('error', error => {
      stderr += `\n${error.message}`
    })

    const caFile = join(storageDir, 'pki', 'authorities', 'local', 'root.crt')
    const probeName = `edge-ready.${publicDomain}`
    const deadline = Date.now() + READY_TIMEOUT_MS
    for (;;) {
      if (started.exitCode !== null || started.signalCode !== null) {
        throw new Error(`Caddy stopped while starting: ${stderr.trim()}`)
      }
      if (existsSync(caFile) && (await handshakes(port, probeName, readFileSync(caFile, 'utf8')))) {
        break
      }
      if (Date.now() > deadline) {
        throw new Error(`Caddy did not serve https within ${READY_TIMEOUT_MS} ms: ${stderr.trim()}`)
      }
      await sleep(100)
    }

    const intermediate = join(storageDir, 'pki', 'authorities', 'local', 'intermediate.crt')
    const wildcard = join(
      storageDir,
      'certificates',
      'local',
      `wildcard_.${publicDomain}`,
      `wildcard_.${publicDomain}.crt`
    )
    return {
      port,
      publicDomain,
      internalDomain,
      folder: dir,
      urlFor: label => `https://${label}.${publicDomain}:${port}/`,
      caFile,
      spkiHashes: () =>
        [...(usesWildcard(publicDomain) ? [wildcard] : []), intermediate].map(path =>
          spkiHash(readFileSync(path, 'utf8'))
        ),
      stop
    }
  } catch (error) {
    await stop()
    throw error
  }
}
