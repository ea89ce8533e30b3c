/**
 * The tunnel part of `npm run demo`: what the exported variables are for. Starts the local
 * service with its tunnel stand-in, runs the bundled main step, opens a tunnel with the real
 * OpenSSH client from the four variables (token through SSH_ASKPASS), curls the local app
 * through it, runs the post step, and shows that a new connection is then refused.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { Job } from './job.js'
import {
  getThroughFront,
  hasSsh,
  makeAskpass,
  SSH,
  startLocalApp,
  startSsh,
  tunnelVariables,
  waitForTunnel,
  type SshClient
} from './openssh.js'
import { startCredentialService } from '../service/server.js'

const CURL = '/usr/bin/curl'

/** curl's answer for the URL as a person would type it; Node's request when curl is missing. */
export function curl(url: string, frontPort: number, host: string): Promise<string> {
  if (!existsSync(CURL)) {
    return getThroughFront(frontPort, host).then(answer => `${answer.body} (HTTP ${answer.status})`)
  }
  return new Promise(resolve =>
    execFile(CURL, ['-sS', '--max-time', '5', url], (error, stdout, stderr) =>
      resolve(error === null ? stdout : `curl failed: ${stderr.trim() || error.message}`)
    )
  )
}

/** Runs the tunnel demo and prints it; returns what did not happen (empty when all did). */
export async function runTunnelDemo(node: string): Promise<string[]> {
  const failures: string[] = []
  const check = (ok: boolean, what: string) => {
    if (!ok) failures.push(what)
  }
  console.log(`\n── tunnel: using the exported variables ${'─'.repeat(22)}`)
  if (!hasSsh()) {
    console.log(`  ${SSH} not found: tunnel part skipped.`)
    return [`the OpenSSH client is at ${SSH}`]
  }

  const service = await startCredentialService({ tunnel: { checkIntervalMs: 100 } })
  const tunnel = service.tunnel!
  const askpass = makeAskpass()
  const app = await startLocalApp('answer from your local app')
  const clients: SshClient[] = []
  try {
    console.log(
      `  Tunnel stand-in: SSH on ${tunnel.host}:${tunnel.port}, host key ${tunnel.fingerprint}`
    )
    console.log(`  known_hosts written by the service: ${tunnel.knownHostsPath}`)
    console.log(`  HTTP front: ${tunnel.frontUrl}`)
    console.log(`  Local app: http://127.0.0.1:${app.port}/`)

    const job = new Job({ node })
    const { provisionKey: apiKey, project } = service.seed
    const { main } = await job.uses({ 'api-key': apiKey, project, 'base-url': service.baseUrl })
    check(main.exitCode === 0, 'the tunnel demo main step exited 0')
    const vars = tunnelVariables(main.env)
    const user = vars.SVC_TUNNEL_USER
    console.log(
      `\n  main step: exit ${main.exitCode}; SVC_TUNNEL_USER=${user} SVC_TUNNEL_HOST=${vars.SVC_TUNNEL_HOST} SVC_TUNNEL_PORT=${vars.SVC_TUNNEL_PORT} SVC_TUNNEL_TOKEN=***`
    )

    const open = () => {
      const client = startSsh(vars, askpass.path, {
        knownHostsPath: tunnel.knownHostsPath,
        name: 'app',
        localPort: app.port
      })
      clients.push(client)
      return client
    }
    // The command as a workflow step writes it: the variables by name, as the shell sees them.
    const byName = (arg: string) =>
      arg === vars.SVC_TUNNEL_PORT
        ? '"$SVC_TUNNEL_PORT"'
        : arg === `${user}@${vars.SVC_TUNNEL_HOST}`
          ? '"$SVC_TUNNEL_USER@$SVC_TUNNEL_HOST"'
          : arg
    const showSsh = (client: SshClient) =>
      console.log(
        `  $ SSH_ASKPASS=askpass.sh SSH_ASKPASS_REQUIRE=force DISPLAY=:0 ssh ${client.args.map(byName).join(' ')}`
      )

    const client = open()
    console.log('\n  askpass.sh prints "$SVC_TUNNEL_TOKEN"; the token is on no command line.')
    showSsh(client)
    const host = `app-${user}.localhost`
    await waitForTunnel(client, tunnel.frontPort, host)
    const url = tunnel.urlFor('app', user)
    console.log(`  $ curl -sS ${url}`)
    const answer = await curl(url, tunnel.frontPort, host)
    console.log(`  curl through the tunnel → ${answer.trim()}`)
    check(
      answer.startsWith('answer from your local app'),
      'curl through the tunnel reached the app'
    )

    const [post] = await job.end()
    const status = service.tokens().find(t => t.tunnel_user === user)?.status
    console.log(`\n  post step: exit ${post.exitCode}; token of ${user} is now ${status}`)
    check(
      post.exitCode === 0 && status === 'revoked',
      'the tunnel demo post step revoked the token'
    )
    const code = await Promise.race([
      client.exited,
      new Promise<string>(resolve => setTimeout(() => resolve('still running'), 3000))
    ])
    const closed = tunnel
      .events()
      .filter(e => e.user === user && e.event === 'closed')
      .at(-1)
    console.log(
      `  open ssh session: ${closed ? `closed by the server (${closed.detail})` : 'not closed'}, ssh exit ${code}`
    )

    const again = open()
    console.log('\n  A new connection with the same variables (the same command):')
    const exit = await again.exited
    const refused = tunnel
      .events()
      .filter(e => e.user === user && e.event === 'refused')
      .at(-1)
    const said = again.stderr().trim().split('\n').at(-1) ?? ''
    console.log(
      exit === 255 && refused
        ? `  new connection refused: ${refused.detail} (ssh exit ${exit}: "${said.trim()}")`
        : `  new connection NOT refused (ssh exit ${exit}): ${again.stderr()}`
    )
    check(exit === 255 && refused?.detail === 'credential revoked', 'a new connection was refused')
  } catch (error) {
    failures.push(`the tunnel demo ran through (${String(error)})`)
  } finally {
    await Promise.all(clients.map(client => client.stop()))
    await app.close()
    askpass.remove()
    await service.close()
  }
  return failures
}
