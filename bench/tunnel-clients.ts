/**
 * The two ways a job gets its app a public URL, behind one shape so the tunnel benchmark
 * measures both the same way:
 * - OpenSSH, the README's recipe: the action's main step (no `expose`), then
 *   `ssh -f -N -o ExitOnForwardFailure=yes -R app:80:localhost:<port>` with the token through
 *   SSH_ASKPASS; ssh goes to the background only once the server has accepted the forward.
 * - The action with `expose: app=<port>`: its main step returns once the forward is accepted,
 *   leaving its tunnel keeper process running; the post step stops it and revokes.
 * Each `open()` runs a fresh job (its own RUNNER_TEMP and credential); `close()` ends it.
 * The action runs with action.yml's defaults but for the inputs a client is given: the request
 * log on (`log-requests: true`), and `prove-url` as the client says.
 */
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { Job } from '../scripts/job.js'
import { makeAskpass, SSH, sshArgs, tunnelVariables } from '../scripts/openssh.js'
import { renderLog, type StepResult } from '../scripts/runner.js'
import type { RunningService } from '../service/server.js'

export interface OpenTunnel {
  /** From starting the client to the forward being accepted (the client's own step or command). */
  readyMs: number
  /** The action's main step before `ssh -f`, for the recipe's whole time to ready; else 0. */
  provisionMs: number
  /** `app-<user>.localhost`: the Host the front routes to this tunnel. */
  host: string
  /** The process that holds the SSH connection: its memory is what the job pays for. */
  pid: number
  /** The action's `request-log` output (the HAR's path), when main set one. */
  requestLog?: string
  /** Stops the tunnel and revokes the credential. */
  close(): Promise<Closed>
}

export interface Closed {
  /** The post step's tunnel line (the action only). */
  postLine?: string
  /** Requests in the HAR after post (the action with its request log on only). */
  harEntries?: number
}

export interface TunnelClient {
  /** As the report names it. */
  label: string
  open(appPort: number): Promise<OpenTunnel>
}

export interface ClientContext {
  node: string
  /** For every step (NODE_EXTRA_CA_CERTS: the service speaks https with a throw-away certificate). */
  env: Record<string, string>
  service: RunningService
  /** A fresh API key for each provision (the service allows 60 per key and hour). */
  nextKey(): string
}

const since = (started: number) => performance.now() - started

function mainInputs(context: ClientContext): Record<string, string> {
  return {
    'api-key': context.nextKey(),
    project: context.service.seed.project,
    'base-url': context.service.baseUrl
  }
}

function expectSuccess(step: StepResult, what: string): void {
  if (step.exitCode !== 0) {
    throw new Error(`bench: ${what} exited ${step.exitCode}:\n${renderLog(step)}`)
  }
}

/** Resident memory in KiB, from /proc (Linux) or `ps` elsewhere; undefined once the process is gone. */
export async function residentKib(pid: number): Promise<number | undefined> {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)
    if (match) return Number(match[1])
  } catch {
    // No /proc (macOS) or no such process: ask ps.
  }
  return new Promise(resolve =>
    execFile('ps', ['-o', 'rss=', '-p', String(pid)], (error, stdout) =>
      resolve(error === null && /^\s*\d+\s*$/.test(stdout) ? Number(stdout) : undefined)
    )
  )
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** SIGTERM to a process this benchmark started, then wait (at most 5 s) until it is gone. */
async function stopProcess(pid: number): Promise<void> {
  if (!isRunning(pid)) return
  process.kill(pid, 'SIGTERM')
  const deadline = Date.now() + 5000
  while (isRunning(pid) && Date.now() < deadline) {
    await new Promise(resolve => setTimeout(resolve, 20))
  }
  if (isRunning(pid)) process.kill(pid, 'SIGKILL')
}

// ---------------------------------------------------------------- OpenSSH, as the README recipe

function runSsh(args: string[], env: Record<string, string>): Promise<number | null> {
  // No pipes: with -f the backgrounded ssh would hold them open after the foreground one exits.
  const child = spawn(SSH, args, { stdio: 'ignore', env })
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('exit', code => resolve(code))
  })
}

/** The master's pid from `ssh -O check`, which answers `Master running (pid=N)`. */
function masterPid(controlPath: string, env: Record<string, string>, target: string) {
  return new Promise<number>((resolve, reject) =>
    execFile(
      SSH,
      ['-F', '/dev/null', '-S', controlPath, '-O', 'check', target],
      { env },
      (error, _stdout, stderr) => {
        const pid = /pid=(\d+)/.exec(stderr)?.[1]
        if (pid === undefined) reject(new Error(`bench: ssh -O check: ${error?.message ?? stderr}`))
        else resolve(Number(pid))
      }
    )
  )
}

export function openSshClient(context: ClientContext, label = 'main, ssh -f'): TunnelClient {
  const tunnel = context.service.tunnel!
  return {
    label,
    open: async appPort => {
      const job = new Job({ node: context.node, env: context.env })
      const startedMain = performance.now()
      const { main } = await job.uses(mainInputs(context))
      const provisionMs = since(startedMain)
      expectSuccess(main, 'the main step without expose')
      const vars = tunnelVariables(main.env)
      const dir = mkdtempSync(join(tmpdir(), 'bench-ssh-'))
      const askpass = makeAskpass()
      const controlPath = join(dir, 'control.sock')
      const logPath = join(dir, 'ssh.log')
      const env = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        ...vars,
        SSH_ASKPASS: askpass.path,
        SSH_ASKPASS_REQUIRE: 'force',
        DISPLAY: ':0'
      }
      const args = [
        '-f',
        '-M',
        '-S',
        controlPath,
        '-E',
        logPath,
        ...sshArgs(vars, { knownHostsPath: tunnel.knownHostsPath, name: 'app', localPort: appPort })
      ]
      const target = args.at(-1)!
      let pid: number | undefined
      const cleanUp = async () => {
        if (pid !== undefined) await stopProcess(pid)
        askpass.remove()
        rmSync(dir, { recursive: true, force: true })
        const [post] = await job.end()
        expectSuccess(post, 'the post step after ssh')
      }
      try {
        const started = performance.now()
        const code = await runSsh(args, env)
        const readyMs = since(started)
        if (code !== 0) {
          throw new Error(`bench: ssh -f exited ${code}: ${readFileSync(logPath, 'utf8')}`)
        }
        pid = await masterPid(controlPath, env, target)
        return {
          readyMs,
          provisionMs,
          host: `app-${vars.SVC_TUNNEL_USER}.localhost`,
          pid,
          close: async () => {
            await cleanUp()
            return {}
          }
        }
      } catch (error) {
        await cleanUp()
        throw error
      }
    }
  }
}

// ---------------------------------------------------------------- the action with expose

/**
 * Where main saves its keeper's pid: the `tunnel` state entry, a JSON object with `pid`
 * (src/core/tunnel/main/launch.ts). Read here as a user's later step could not: only the bench needs it.
 */
export function keeperPidFromState(state: Record<string, string>): number {
  let pid: unknown
  try {
    pid = (JSON.parse(state.tunnel ?? 'null') as { pid?: unknown } | null)?.pid
  } catch {
    pid = undefined
  }
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) {
    throw new Error(
      `bench: main saved no tunnel keeper pid in its state (keys: ${Object.keys(state).join(', ')})`
    )
  }
  return pid
}

/** The post step's one tunnel line: uptime, reconnects, connections, bytes, local errors. */
export function tunnelLineOf(post: StepResult): string | undefined {
  return post.lines.map(line => line.text).find(text => /\breconnects?\b/i.test(text))
}

/** How many requests the HAR at `path` holds; undefined when there is no such file or no HAR. */
export function harEntryCount(path: string): number | undefined {
  try {
    const har = JSON.parse(readFileSync(path, 'utf8')) as { log?: { entries?: unknown[] } }
    return har.log?.entries?.length
  } catch {
    return undefined
  }
}

/** The action with `expose`; `inputs` on top of the credential's, e.g. `prove-url: false`. */
export function actionClient(
  context: ClientContext,
  label: string,
  inputs: Record<string, string> = {}
): TunnelClient {
  const tunnel = context.service.tunnel!
  return {
    label,
    open: async appPort => {
      const job = new Job({ node: context.node, env: context.env })
      const started = performance.now()
      const use = await job.uses({
        ...mainInputs(context),
        expose: `app=${appPort}`,
        'url-template': tunnel.urlTemplate,
        'tunnel-host-key': tunnel.fingerprint,
        ...inputs
      })
      const readyMs = since(started)
      const { main } = use
      try {
        expectSuccess(main, 'the main step with expose')
        const url = main.outputs.url
        if (!url) throw new Error(`bench: main set no url output:\n${renderLog(main)}`)
        const requestLog = main.outputs['request-log'] || undefined
        return {
          readyMs,
          provisionMs: 0,
          host: new URL(url).hostname,
          pid: keeperPidFromState(main.state),
          requestLog,
          close: async () => {
            // Post first, then the HAR (post's keeper has flushed it), then the job's end
            // removes RUNNER_TEMP with the HAR in it.
            const post = await use.post()
            const harEntries = requestLog === undefined ? undefined : harEntryCount(requestLog)
            await job.end()
            expectSuccess(post, 'the post step after expose')
            return { postLine: tunnelLineOf(post), harEntries }
          }
        }
      } catch (error) {
        await job.end()
        throw error
      }
    }
  }
}
