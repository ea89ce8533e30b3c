/**
 * The exported variables open a real tunnel: after the bundled main step (Node 24), the OpenSSH
 * client runs with user, host and port from SVC_TUNNEL_USER, _HOST and _PORT and the token from
 * SVC_TUNNEL_TOKEN through SSH_ASKPASS, against the service's tunnel stand-in, with the host key
 * checked against the known_hosts file the service wrote. Then the post step takes it back.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import {
  hasSsh,
  makeAskpass,
  startLocalApp,
  startSsh,
  tunnelVariables,
  waitForTunnel,
  getThroughFront,
  type SshClient,
  type TunnelVariables
} from '../../scripts/openssh.js'
import { inputsFor, runAction, statusOf, useService } from './helpers.js'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
const clients: SshClient[] = []
let askpass: ReturnType<typeof makeAskpass>
let app: Awaited<ReturnType<typeof startLocalApp>>

beforeAll(async () => {
  // No skipping: this suite is the proof, and OpenSSH is on every GitHub-hosted runner.
  if (!hasSsh()) throw new Error('these tests need the OpenSSH client at /usr/bin/ssh')
  askpass = makeAskpass()
  app = await startLocalApp('answer from your local app')
})
afterAll(async () => {
  await Promise.all(clients.map(client => client.stop()))
  await app?.close()
  askpass?.remove()
})

/** `ssh -N -R app:80:localhost:<app port> $SVC_TUNNEL_USER@$SVC_TUNNEL_HOST -p $SVC_TUNNEL_PORT` */
function ssh(vars: TunnelVariables): SshClient {
  const client = startSsh(vars, askpass.path, {
    knownHostsPath: service().tunnel!.knownHostsPath,
    name: 'app',
    localPort: app.port
  })
  clients.push(client)
  return client
}

const lastEvent = (user: string) =>
  service()
    .tunnel!.events()
    .filter(event => event.user === user)
    .at(-1)

/** A connection that the server refuses: ssh exits 255 saying so, having asked askpass once. */
async function expectRefused(vars: TunnelVariables, reason: string): Promise<void> {
  const refused = ssh(vars)
  expect(await refused.exited).toBe(255)
  expect(refused.stderr()).toContain(`${vars.SVC_TUNNEL_USER}@127.0.0.1: Permission denied`)
  expect(lastEvent(vars.SVC_TUNNEL_USER)).toMatchObject({ event: 'refused', detail: reason })
}

describe('a tunnel opened with the exported variables', () => {
  it('CI/CD credential: reaches the local app, and is refused after the post step revoked it', async () => {
    const { main, post } = await runAction(inputsFor(service()))
    expect(main.exitCode).toBe(0)
    const vars = tunnelVariables(main.env)
    expect(vars).toMatchObject({
      SVC_TUNNEL_HOST: '127.0.0.1',
      SVC_TUNNEL_PORT: String(service().tunnel!.port)
    })
    const user = vars.SVC_TUNNEL_USER
    const client = ssh(vars)
    // The token is in no argument; only the askpass program reads it from the environment.
    expect(client.args.join(' ')).not.toContain(vars.SVC_TUNNEL_TOKEN)
    expect(client.args).toContain(`app:80:localhost:${app.port}`)

    const host = `app-${user}.localhost`
    expect(await waitForTunnel(client, service().tunnel!.frontPort, host)).toEqual({
      status: 200,
      body: 'answer from your local app (GET /)\n'
    })
    // OpenSSH sends "app" as the bind address of `-R app:80:…`; the front routes on it.
    expect(service().tunnel!.forwards()).toContainEqual({ user, name: 'app', host })

    const after = await post()
    expect(after.exitCode).toBe(0)
    expect(statusOf(service(), user)).toBe('revoked')
    // The open session is closed by the server once the token is revoked ...
    expect(await client.exited).toBe(255)
    expect(lastEvent(user)).toMatchObject({ event: 'closed', detail: 'credential revoked' })
    expect((await getThroughFront(service().tunnel!.frontPort, host)).status).toBe(502)
    // ... and a new connection with the same variables is refused.
    await expectRefused(vars, 'credential revoked')
  }, 30_000)

  it('free credential: the same tunnel works; post leaves it, and it is refused once expired', async () => {
    const { main, post } = await runAction(inputsFor(service(), { credential: 'free' }))
    expect(main.exitCode).toBe(0)
    const vars = tunnelVariables(main.env)
    const user = vars.SVC_TUNNEL_USER
    const client = ssh(vars)
    const host = `app-${user}.localhost`
    expect((await waitForTunnel(client, service().tunnel!.frontPort, host)).body).toBe(
      'answer from your local app (GET /)\n'
    )
    expect(lastEvent(user)).toMatchObject({ event: 'forward', detail: host })

    // A free credential cannot be revoked: the post step leaves it to expire by itself.
    const after = await post()
    expect(after.exitCode).toBe(0)
    expect(statusOf(service(), user)).toBe('active')
    expect((await getThroughFront(service().tunnel!.frontPort, host)).status).toBe(200)

    // Its five minutes over (moved forward through the service), the tunnel closes ...
    service().expire(user)
    expect(await client.exited).toBe(255)
    expect((await getThroughFront(service().tunnel!.frontPort, host)).status).toBe(502)
    // ... and a new connection is refused.
    await expectRefused(vars, 'credential expired')
  }, 30_000)

  it('a host key not in known_hosts stops ssh before it sends the token', async () => {
    const { main } = await runAction(inputsFor(service()))
    const vars = tunnelVariables(main.env)
    const client = startSsh(vars, askpass.path, {
      knownHostsPath: '/dev/null',
      name: 'app',
      localPort: app.port
    })
    clients.push(client)
    expect(await client.exited).toBe(255)
    expect(client.stderr()).toContain('Host key verification failed.')
    expect(
      service()
        .tunnel!.events()
        .filter(e => e.user === vars.SVC_TUNNEL_USER)
    ).toEqual([])
  }, 30_000)
})

/** The plain-ssh recipe's workflow (docs/plain-ssh.md, its first yaml block), its steps by name. */
function readmeSteps(): Map<string, { run: string; env?: Record<string, string> }> {
  const recipe = readFileSync(join(process.cwd(), 'docs', 'plain-ssh.md'), 'utf8')
  const block = /```yaml\n([\s\S]*?)```/.exec(recipe)?.[1]
  if (block === undefined) throw new Error('docs/plain-ssh.md: no yaml block')
  const steps = parse(block) as Array<{ name?: string; run?: string; env?: Record<string, string> }>
  return new Map(
    steps.flatMap(step => (step.name && step.run ? [[step.name, { ...step, run: step.run }]] : []))
  )
}

/** Runs a `run:` script as the runner's default bash does: `bash --noprofile --norc -eo pipefail`. */
function runShell(
  script: string,
  env: Record<string, string>,
  dir: string
): Promise<{ code: number; output: string }> {
  const file = join(dir, `step-${Math.random().toString(36).slice(2)}.sh`)
  writeFileSync(file, script)
  return new Promise(resolve =>
    execFile(
      'bash',
      ['--noprofile', '--norc', '-eo', 'pipefail', file],
      { env, timeout: 15_000 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), output: stdout + stderr })
    )
  )
}

describe("the plain-ssh recipe's workflow steps (docs/plain-ssh.md), run as written", () => {
  let runnerTemp: string | undefined
  let close: (() => Promise<unknown>) | undefined
  afterAll(async () => {
    await close?.()
    if (runnerTemp !== undefined) rmSync(runnerTemp, { recursive: true, force: true })
  })

  it('open the tunnel with ssh -f in the background, reach the app, close it; refused after post', async () => {
    const steps = readmeSteps()
    const open = steps.get('Open the tunnel')
    const shut = steps.get('Close the tunnel')
    expect(open?.run).toContain('ssh -f -N')
    expect(shut?.run).toContain('-O exit')
    const { main, post } = await runAction(inputsFor(service()))
    const vars = tunnelVariables(main.env)
    runnerTemp = mkdtempSync(join(tmpdir(), 'readme-steps-'))
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? runnerTemp,
      RUNNER_TEMP: runnerTemp,
      // What `${{ vars.SVC_TUNNEL_KNOWN_HOSTS }}` holds: the stand-in's known_hosts line.
      KNOWN_HOSTS: readFileSync(service().tunnel!.knownHostsPath, 'utf8').trim(),
      ...vars
    }
    const openScript = open!.run.replace('localhost:3000', `localhost:${app.port}`)
    const shutScript = shut!.run
    close = () => runShell(shutScript, env, runnerTemp!)

    const opened = await runShell(openScript, env, runnerTemp)
    expect(opened).toEqual({ code: 0, output: '' })
    // -f returned after the forward was set up: it answers at once, no polling.
    const host = `app-${vars.SVC_TUNNEL_USER}.localhost`
    expect(await getThroughFront(service().tunnel!.frontPort, host)).toEqual({
      status: 200,
      body: 'answer from your local app (GET /)\n'
    })

    expect((await runShell(shutScript, env, runnerTemp)).code).toBe(0)
    await new Promise(resolve => setTimeout(resolve, 200))
    expect((await getThroughFront(service().tunnel!.frontPort, host)).status).toBe(502)

    expect((await post()).exitCode).toBe(0)
    const refused = await runShell(openScript, env, runnerTemp)
    expect(refused.code).toBe(255)
    expect(refused.output).toContain('Permission denied')
    expect(lastEvent(vars.SVC_TUNNEL_USER)).toMatchObject({
      event: 'refused',
      detail: 'credential revoked'
    })
  }, 30_000)
})
