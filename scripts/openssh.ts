/**
 * The plain-`ssh` way to use the exported variables, as a workflow step on a runner would:
 * the real OpenSSH client in a child process, user, host and port from SVC_TUNNEL_USER, _HOST
 * and _PORT, the token from SVC_TUNNEL_TOKEN through an SSH_ASKPASS program (never on a
 * command line), the server's key checked against a known_hosts file. Shared by the tunnel
 * end-to-end tests and `npm run demo`.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const SSH = '/usr/bin/ssh'
export const hasSsh = (): boolean => existsSync(SSH)

/** What the action exported; only these four reach the client. */
export type TunnelVariables = Record<
  'SVC_TUNNEL_TOKEN' | 'SVC_TUNNEL_USER' | 'SVC_TUNNEL_HOST' | 'SVC_TUNNEL_PORT',
  string
>

export function tunnelVariables(env: Record<string, string>): TunnelVariables {
  const names = ['SVC_TUNNEL_TOKEN', 'SVC_TUNNEL_USER', 'SVC_TUNNEL_HOST', 'SVC_TUNNEL_PORT']
  const missing = names.filter(name => !env[name])
  if (missing.length > 0) throw new Error(`not exported: ${missing.join(', ')}`)
  return Object.fromEntries(names.map(name => [name, env[name]])) as TunnelVariables
}

/** The askpass program: prints the token from the environment, so it is never an argument. */
export const ASKPASS_SCRIPT = `#!/bin/sh\nprintf '%s\\n' "$SVC_TUNNEL_TOKEN"\n`

export interface SshClient {
  /** The command line, token-free, as it would appear in a workflow log. */
  args: string[]
  child: ChildProcess
  stderr(): string
  /** Exit code; null when killed by a signal. */
  exited: Promise<number | null>
  /** Kills the client (SIGTERM) and waits for it. Safe to call twice. */
  stop(): Promise<void>
}

export interface SshOptions {
  knownHostsPath: string
  /** `-R <name>:80:localhost:<localPort>` */
  name: string
  localPort: number
}

/** A fresh directory holding the askpass script; remove it when done. */
export function makeAskpass(): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'ssh-askpass-'))
  const path = join(dir, 'askpass.sh')
  writeFileSync(path, ASKPASS_SCRIPT)
  chmodSync(path, 0o700)
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

export function sshArgs(vars: TunnelVariables, options: SshOptions): string[] {
  return [
    '-F',
    '/dev/null',
    '-N',
    '-p',
    vars.SVC_TUNNEL_PORT,
    '-o',
    'BatchMode=no',
    '-o',
    'StrictHostKeyChecking=yes',
    '-o',
    `UserKnownHostsFile=${options.knownHostsPath}`,
    '-o',
    'ExitOnForwardFailure=yes',
    '-o',
    'NumberOfPasswordPrompts=1',
    '-o',
    'ConnectTimeout=10',
    '-R',
    `${options.name}:80:localhost:${options.localPort}`,
    `${vars.SVC_TUNNEL_USER}@${vars.SVC_TUNNEL_HOST}`
  ]
}

/** Starts `ssh -N -R …` in the background with the token only in its environment. */
export function startSsh(vars: TunnelVariables, askpass: string, options: SshOptions): SshClient {
  return spawnSsh(sshArgs(vars, options), {
    ...vars,
    SSH_ASKPASS: askpass,
    SSH_ASKPASS_REQUIRE: 'force',
    DISPLAY: ':0'
  })
}

/** What `credential: ssh-key` exports: the private key file takes the token's place. */
export type KeyTunnelVariables = Record<
  'SVC_TUNNEL_KEY_FILE' | 'SVC_TUNNEL_USER' | 'SVC_TUNNEL_HOST' | 'SVC_TUNNEL_PORT',
  string
>

export function keyTunnelVariables(env: Record<string, string>): KeyTunnelVariables {
  const names = ['SVC_TUNNEL_KEY_FILE', 'SVC_TUNNEL_USER', 'SVC_TUNNEL_HOST', 'SVC_TUNNEL_PORT']
  const missing = names.filter(name => !env[name])
  if (missing.length > 0) throw new Error(`not exported: ${missing.join(', ')}`)
  return Object.fromEntries(names.map(name => [name, env[name]])) as KeyTunnelVariables
}

/**
 * `ssh -i "$SVC_TUNNEL_KEY_FILE" -N -R …`: public-key authentication only, with no prompt to
 * fall back to, and the same host key check as with a token. OpenSSH keeps the first value of
 * an option, so these come before the shared ones.
 */
export function startSshWithKey(vars: KeyTunnelVariables, options: SshOptions): SshClient {
  const args = [
    '-i',
    vars.SVC_TUNNEL_KEY_FILE,
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    'PreferredAuthentications=publickey',
    '-o',
    'BatchMode=yes',
    ...sshArgs({ ...vars, SVC_TUNNEL_TOKEN: '' }, options)
  ]
  return spawnSsh(args, {})
}

function spawnSsh(args: string[], env: Record<string, string>): SshClient {
  const child = spawn(SSH, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      ...(process.env.HOME === undefined ? {} : { HOME: process.env.HOME }),
      ...env
    }
  })
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr += text))
  const exited = new Promise<number | null>(resolve => {
    if (child.exitCode !== null) resolve(child.exitCode)
    child.on('close', code => resolve(code))
    child.on('error', () => resolve(null))
  })
  return {
    args,
    child,
    stderr: () => stderr,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    }
  }
}

/** A small local HTTP app, the thing a job would expose; answers every request with `text`. */
export async function startLocalApp(
  text: string
): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' })
    res.end(`${text} (${req.method} ${req.url})\n`)
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>(resolve => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

/** GET through the front for `host` (the request goes to 127.0.0.1, routed by Host alone). */
export function getThroughFront(
  frontPort: number,
  host: string,
  path = '/'
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: frontPort,
        path,
        headers: { host: `${host}:${frontPort}` },
        // A fresh connection each time: the front routes a connection, not each request on it.
        agent: false
      },
      res => {
        let body = ''
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      }
    )
    req.setTimeout(5000, () => req.destroy(new Error('no answer from the front in 5 s')))
    req.on('error', reject)
    req.end()
  })
}

/**
 * Polls the front until the forward answers 200, or the client exits, or time runs out; the
 * forward exists only once ssh has logged in and asked for it.
 */
export async function waitForTunnel(
  client: SshClient,
  frontPort: number,
  host: string,
  timeoutMs = 10_000
): Promise<{ status: number; body: string }> {
  let exited = false
  void client.exited.then(() => (exited = true))
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const answer = await getThroughFront(frontPort, host)
    if (answer.status === 200) return answer
    if (exited || Date.now() > deadline) {
      throw new Error(
        `no tunnel for ${host} (last answer ${answer.status}); ssh ${exited ? `exited ${await client.exited}` : 'still running'}: ${client.stderr()}`
      )
    }
    await new Promise(resolve => setTimeout(resolve, 100))
  }
}
