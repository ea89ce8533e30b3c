/**
 * Main with `expose` and its post step, run in this process against the local service and its
 * tunnel stand-in; the keeper runs detached from its TypeScript source (tsx). The bundled
 * action is proved the same way in __tests__/e2e/expose.test.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { getThroughFront, startLocalApp } from '../../scripts/openssh.js'
import { startCredentialService, type RunningService } from '../../service/server.js'
import { runMain, runPost } from '../helpers/github-steps.js'
import { isProcessAlive } from '../../src/core/tunnel/stop.js'
import { tunnelFiles } from '../../src/core/tunnel/protocol.js'
import { prepareTunnel } from '../../src/core/tunnel/open.js'
import { stopSavedTunnel } from '../../src/core/tunnel/stop-saved.js'
import { loadTunnel } from '../../src/core/tunnel/saved-tunnel.js'
import type { StopOptions } from '../../src/core/tunnel/stop.js'
import { githubHost } from '../../src/github/host.js'
import { bundledTunnelProcess } from '../../src/github/tunnel-process.js'
import { directoryId as dirIdOf } from '../../src/core/owned-dir.js'
import { DEFAULT_TRAFFIC } from '../../src/core/settings/traffic.js'
import { runInProcess, linesLeaking } from '../helpers/in-process-step.js'

const launch = {
  scriptPath: fileURLToPath(new URL('../../src/core/tunnel/keeper/main.ts', import.meta.url)),
  execArgv: ['--import', 'tsx']
}
let service: RunningService
let app: Awaited<ReturnType<typeof startLocalApp>>
let runnerTemp: string

beforeAll(async () => {
  service = await startCredentialService({ tunnel: { checkIntervalMs: 50 } })
  app = await startLocalApp('answer from the local app')
  runnerTemp = mkdtempSync(join(tmpdir(), 'steps-test-'))
})
afterAll(async () => {
  await app.close()
  await service.close()
  rmSync(runnerTemp, { recursive: true, force: true })
})

const template = () => `http://{name}-{user}.localhost:${service.tunnel!.frontPort}`
const inputs = (extra: Record<string, string> = {}) => ({
  'api-key': service.seed.provisionKey,
  project: service.seed.project,
  'base-url': service.baseUrl,
  'url-template': template(),
  'timeout-seconds': '5',
  ...extra
})
const env = () => ({ RUNNER_TEMP: runnerTemp })
const main = (extra: Record<string, string> = {}) =>
  runInProcess(() => runMain(undefined, launch), inputs(extra), { env: env() })
const post = (state: Record<string, string>, extra: Record<string, string> = {}) =>
  runInProcess(() => runPost(), inputs(extra), { state, env: env() })
const hostOf = (url: string) => new URL(url).hostname
/** Post's tunnel stop with the GitHub host, read inside runInProcess. */
const closeTunnel = async (options?: StopOptions) => {
  const host = githubHost()
  const loaded = loadTunnel(host.state, host.tempRoot)
  if (loaded) await stopSavedTunnel(loaded, host, options)
}

describe('main with expose, then post', () => {
  it('publishes the URLs once the tunnel serves, and post stops it before revoking', async () => {
    const step = await main({ expose: `web=${app.port}\napi=127.0.0.1:${app.port}` })
    expect(step.errors).toEqual([])
    const user = step.outputs['tunnel-user']
    const urls = {
      web: `http://web-${user}.localhost:${service.tunnel!.frontPort}`,
      api: `http://api-${user}.localhost:${service.tunnel!.frontPort}`
    }
    expect(step.outputs.url).toBe(urls.web)
    expect(JSON.parse(step.outputs.urls)).toEqual(urls)
    expect(step.env.SVC_TUNNEL_URL).toBe(urls.web)
    expect(step.summary).toContain('Tunnel URLs')
    expect(step.summary).toContain(`<td>api</td><td>${urls.api}</td>`)
    expect(step.lines).toContain(`Exposed web: ${urls.web}`)
    const fingerprint = service.tunnel!.fingerprint
    expect(step.commands.filter(c => c.name === 'notice').map(c => c.message)).toEqual([
      `The tunnel server's host key is ${fingerprint}; it was accepted because input tunnel-host-key is empty. To refuse any other key, set input tunnel-host-key: ${fingerprint}`
    ])
    expect(linesLeaking(step, step.outputs.token)).toEqual([])
    const saved = JSON.parse(step.state.tunnel) as { pid: number }
    expect(Object.keys(saved).sort()).toEqual(['dir', 'dirId', 'pid', 'startTime', 'started'])
    expect(step.state.tunnel).not.toContain(step.outputs.token)

    for (const url of Object.values(urls)) {
      expect(await getThroughFront(service.tunnel!.frontPort, hostOf(url))).toMatchObject({
        status: 200
      })
    }

    const after = await post(step.state)
    expect(after.warnings).toEqual([])
    const info = after.lines.filter(line => !line.startsWith('::'))
    expect(info).toEqual([
      expect.stringMatching(
        /^Tunnel: up \d+ s, 0 reconnects, 2 connections served, \d+ B in \/ \d+ B out, 0 local connection errors\.$/
      ),
      `Revoked the tunnel token of user ${user}.`
    ])
    expect(isProcessAlive(saved.pid)).toBe(false)
    expect((await getThroughFront(service.tunnel!.frontPort, hostOf(urls.web))).status).toBe(502)
  }, 30_000)

  it('stops the tunnel when a later step emptied its directory, and says its record is lost', async () => {
    const step = await main({ expose: `web=${app.port}` })
    expect(step.errors).toEqual([])
    const saved = JSON.parse(step.state.tunnel) as { pid: number; dir: string }
    // A later step of the job cleans RUNNER_TEMP under the running tunnel.
    rmSync(saved.dir, { recursive: true, force: true })
    expect(
      await getThroughFront(service.tunnel!.frontPort, hostOf(step.outputs.url))
    ).toMatchObject({ status: 200 })
    const after = await post(step.state)
    expect(after.warnings).toEqual([
      `The tunnel process ${saved.pid} was stopped, but its directory ${saved.dir} could not be used (it no longer exists), so its log and counters are lost. ` +
        'Check whether a step of the job deletes or replaces files in RUNNER_TEMP.'
    ])
    expect(isProcessAlive(saved.pid)).toBe(false)
    expect(
      (await getThroughFront(service.tunnel!.frontPort, hostOf(step.outputs.url))).status
    ).toBe(502)
  }, 30_000)

  it('keeps the tunnel and its outputs when the job summary cannot be written', async () => {
    // A directory where the summary file should be: appending to it fails with EISDIR.
    const step = await runInProcess(
      () => runMain(undefined, launch),
      inputs({ expose: `web=${app.port}` }),
      { env: { ...env(), GITHUB_STEP_SUMMARY: runnerTemp } }
    )
    expect(step.errors).toEqual([])
    expect(step.warnings).toEqual([
      expect.stringMatching(/^Could not write the job summary: .*EISDIR/)
    ])
    expect(step.outputs.url).toMatch(/^http:\/\/web-/)
    const after = await post(step.state)
    expect(after.warnings).toEqual([])
    expect(after.lines).toContain(
      `Revoked the tunnel token of user ${step.outputs['tunnel-user']}.`
    )
  }, 30_000)

  it('says the free credential ends the tunnel after 5 minutes', async () => {
    const step = await main({ credential: 'free', 'api-key': '', expose: String(app.port) })
    expect(step.errors).toEqual([])
    expect(step.lines).toContain(
      `The credential is free, so the tunnel ends when the credential does: after 5 minutes (limits.max_uptime_minutes), at ${step.outputs['expires-at']}.`
    )
    expect(JSON.parse(step.outputs.urls)).toEqual({ app: step.outputs.url })
    const after = await post(step.state, { credential: 'free', 'api-key': '' })
    expect(after.lines).toContain(
      'Nothing to revoke: free credentials cannot be revoked. It expires by itself at ' +
        `${step.outputs['expires-at']}.`
    )
    expect(after.lines.some(line => line.startsWith('Tunnel: up '))).toBe(true)
  }, 30_000)

  // The stand-in refuses a sixth forward of one tunnel user.
  const sixEntries = () => ['a', 'b', 'c', 'd', 'e', 'f'].map(n => `${n}=${app.port}`).join('\n')

  it('fails main on a refused name, naming it, revokes the credential, and leaves later steps nothing', async () => {
    const step = await main({ expose: sixEntries() })
    expect(step.failed).toBe(true)
    expect(step.errors).toEqual([
      expect.stringContaining(
        'The tunnel did not start: the tunnel server refused the forward for "f".'
      )
    ])
    const user = service.tokens().at(-1)!.tunnel_user
    expect(step.lines).toContain(
      `Revoked the credential of tunnel user ${user}, which this step could not use.`
    )
    expect(service.tokens().find(t => t.tunnel_user === user)?.status).toBe('revoked')
    expect(step.state.tunnel ?? '').toBe('')
    // All or nothing: not the revoked token, nor any output or summary of the failed step.
    expect(step.env).toEqual({})
    expect(step.outputs).toEqual({})
    expect(step.summary).toBe('')
    const after = await post(step.state)
    expect(after.lines).toContain(
      'Nothing to revoke: no credential was provisioned, or it was already revoked.'
    )
  }, 30_000)

  it('with ssh-key, a tunnel that fails exports no path of the deleted key file', async () => {
    const step = await main({
      credential: 'ssh-key',
      'client-id': 'runner-steps',
      'tunnel-host': service.tunnelHost,
      'tunnel-port': String(service.tunnel!.port),
      expose: sixEntries()
    })
    expect(step.errors).toEqual([
      expect.stringContaining(
        'The tunnel did not start: the tunnel server refused the forward for "f".'
      )
    ])
    const key = service.sshKeys().at(-1)!
    expect(key.status).toBe('revoked')
    expect(step.lines).toContain(
      `Revoked the uploaded SSH key ${key.fingerprint} (id ${key.id}), which this step could not use.`
    )
    expect(step.env).toEqual({})
    expect(step.outputs).toEqual({})
    expect(step.summary).toBe('')
  }, 30_000)

  it('fails on a URL whose host label the real tunnel user makes too long, and revokes at once', async () => {
    // 61 characters: with a one-letter user the label would fit; with the service's 5 it does not.
    const long = `n${'x'.repeat(60)}`
    const step = await main({ expose: `${long}=${app.port}` })
    const user = service.tokens().at(-1)!.tunnel_user
    expect(step.errors).toEqual([
      `Input url-template forms "http://${long}-${user}.localhost:${service.tunnel!.frontPort}" for "${long}", ` +
        `whose host is not a valid host name: the label "${long}-${user}" is 67 characters long, and a label has at most 63. ` +
        `The tunnel user "${user}" comes from the credential service: change input url-template so that {user} is not part of the host name.`
    ])
    expect(service.tokens().find(t => t.tunnel_user === user)?.status).toBe('revoked')
    expect(step.env).toEqual({})
    expect(step.outputs).toEqual({})
    // The keeper never logged in: the URLs are checked before it is given the credential.
    expect(service.tunnel!.loginAttempts().filter(a => a.user === user)).toEqual([])
  }, 30_000)

  it('leaves no tunnel process or directory when the credential is refused', async () => {
    const before = readdirSync(runnerTemp)
    const step = await main({ expose: `web=${app.port}`, 'api-key': `sk_${'0'.repeat(64)}` })
    expect(step.errors).toEqual([
      expect.stringContaining('The API key was rejected (401 UNAUTHORIZED)')
    ])
    expect(step.state.tunnel).toBe('')
    // The keeper started before the request (to overlap it) is gone with its directory.
    expect(readdirSync(runnerTemp)).toEqual(before)
  })

  it('fails before asking for a credential when the tunnel process cannot start', async () => {
    service.clearRequests()
    const step = await runInProcess(
      () => runMain(undefined, launch),
      inputs({ expose: `web=${app.port}` }),
      { env: { RUNNER_TEMP: join(runnerTemp, 'missing', 'folder') } }
    )
    expect(step.errors).toEqual([
      expect.stringMatching(
        /^Could not start the tunnel process: ENOENT.*Check that RUNNER_TEMP is writable and that the runner may start processes; no credential was requested\.$/
      )
    ])
    expect(service.requests()).toEqual([])
    expect(step.env).toEqual({})
  })

  it('checks the tunnel inputs before anything is sent', async () => {
    service.clearRequests()
    const step = await main({ expose: 'web=3000,web=3001' })
    expect(step.errors).toEqual([
      expect.stringContaining('Input expose names "web" more than once')
    ])
    expect(service.requests()).toEqual([])
  })

  it('fails before any request when the URL template cannot form a URL with the tunnel host', async () => {
    service.clearRequests()
    // Fine with a host name, but an IPv6 address needs brackets the template does not give.
    const step = await main({
      expose: '3000',
      'url-template': 'http://{host}/{name}',
      'tunnel-host': '::1'
    })
    expect(step.errors).toEqual([
      'Input url-template "http://{host}/{name}" does not form a URL for "app" with tunnel host ::1: ' +
        'the tunnel host is an IPv6 address, which a URL holds only in square brackets. ' +
        'Set input url-template to the form of the addresses your tunnel server serves forwards at (with an IP address, ' +
        'as in http://{host}:8080/{name}, or http://[{host}]/{name} for IPv6), or set input tunnel-host to its host name. ' +
        'Nothing was requested from the credential service.'
    ])
    expect(service.requests()).toEqual([])
    expect(step.state.tunnel ?? '').toBe('')
  })

  it('fails before any request when the default template meets an IPv4 tunnel host', async () => {
    service.clearRequests()
    const step = await main({ expose: '3000', 'url-template': '', 'tunnel-host': '10.0.0.5' })
    expect(step.errors).toEqual([
      expect.stringMatching(
        /^Input url-template "https:\/\/\{name\}-\{user\}\.\{host\}" does not form a URL for "app" with tunnel host 10\.0\.0\.5: the tunnel host is an IPv4 address, .* Nothing was requested from the credential service\.$/
      )
    ])
    expect(service.requests()).toEqual([])
    expect(step.env).toEqual({})
  })

  it('fails before the key upload when client-id cannot be part of the URL host name', async () => {
    service.clearRequests()
    const step = await main({
      credential: 'ssh-key',
      'client-id': 'ci_runner',
      'tunnel-host': service.tunnelHost,
      expose: `web=${app.port}`
    })
    expect(step.errors).toEqual([
      `Input url-template forms "http://web-ci_runner.localhost:${service.tunnel!.frontPort}" for "web", ` +
        'whose host is not a valid host name: the label "web-ci_runner" holds an underscore, which a host name cannot. ' +
        'The tunnel user comes from input client-id: set it to lower-case letters, digits and inner hyphens, ' +
        'or change input url-template so that {user} is not part of the host name. ' +
        'Nothing was requested from the credential service.'
    ])
    expect(service.requests()).toEqual([])
  })
})

describe('stopSavedTunnel', () => {
  function savedTunnel(stats?: object): Record<string, string> {
    const dir = mkdtempSync(join(runnerTemp, 'tunnel-'))
    const files = tunnelFiles(dir)
    if (stats) writeFileSync(files.statsPath, JSON.stringify(stats))
    writeFileSync(files.logPath, '2026-11-23T10:04:00.000Z Ended: the credential expired\n')
    return {
      isPost: 'true',
      tunnel: JSON.stringify({
        pid: 2147483646,
        dir,
        dirId: dirIdOf(dir),
        startTime: '1',
        started: true
      })
    }
  }
  const stats = {
    pid: 2147483646,
    startedAt: '2026-11-23T10:00:00.000Z',
    readyAt: '2026-11-23T10:00:00.000Z',
    updatedAt: '2026-11-23T10:04:00.000Z',
    state: 'ended',
    reconnects: 0,
    connections: 3,
    bytesIn: 10,
    bytesOut: 20,
    localErrors: 0,
    endedAt: '2026-11-23T10:04:00.000Z',
    endReason: 'the credential expired at 2026-11-23T10:04:00.000Z'
  }

  it('warns when the tunnel process ended during the job, with when and why', async () => {
    const state = savedTunnel(stats)
    const step = await runInProcess(() => closeTunnel(), {}, { state, env: env() })
    expect(step.warnings).toEqual([
      expect.stringMatching(
        /^The tunnel process ended during the job, at 2026-11-23T10:04:00.000Z: the credential expired at 2026-11-23T10:04:00.000Z\.$/
      )
    ])
    // Its process is gone: so is its folder.
    expect(existsSync(JSON.parse(state.tunnel).dir)).toBe(false)
    expect(step.lines).toContain(
      'Tunnel: up 4 min 0 s, 0 reconnects, 3 connections served, 10 B in / 20 B out, 0 local connection errors.'
    )
  })

  const { endedAt: _e, endReason: _r, ...ended } = stats
  const running = { ...ended, state: 'ready' }

  /** A process whose command line ends with `dir`, as the keeper's does; its parent may never reap it. */
  function standIn(
    dir: string,
    script: string,
    neverReaped = false
  ): Promise<ChildProcess & { keeperPid: number }> {
    const node = JSON.stringify(process.execPath)
    const child = neverReaped
      ? // The shell starts the stand-in, then becomes `sleep`, which never waits for its children.
        spawn('sh', ['-c', `${node} -e "$0" "$1" & echo $!; exec sleep 30`, script, dir])
      : spawn(process.execPath, ['-e', script, dir])
    // Given time to start, so that its command line is node's and SIGTERM has its handler.
    const started = (pid: number) =>
      new Promise<ChildProcess & { keeperPid: number }>(resolve =>
        setTimeout(() => resolve(Object.assign(child, { keeperPid: pid })), 300)
      )
    if (!neverReaped) return started(child.pid!)
    return new Promise(resolve =>
      child.stdout!.once('data', data => resolve(started(Number(String(data).trim()))))
    )
  }
  const startTimeOf = (pid: number) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  }
  const idle = 'process.on("SIGTERM", () => process.exit(0)); setInterval(() => {}, 1000)'
  const stubborn = 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)'

  function stateFor(pid: number, dir: string, startTime: string): Record<string, string> {
    return {
      isPost: 'true',
      tunnel: JSON.stringify({ pid, dir, dirId: dirIdOf(dir), startTime, started: true })
    }
  }

  it('kills a keeper that does not stop within the grace period, and warns', async () => {
    const dir = mkdtempSync(join(runnerTemp, 'tunnel-'))
    const keeper = await standIn(dir, stubborn)
    const stats = { ...running, pid: keeper.keeperPid }
    writeFileSync(tunnelFiles(dir).statsPath, JSON.stringify(stats))
    const exited = new Promise(resolve => keeper.once('exit', resolve))
    const step = await runInProcess(
      () => closeTunnel({ graceMs: 200 }),
      {},
      { state: stateFor(keeper.keeperPid, dir, startTimeOf(keeper.keeperPid)), env: env() }
    )
    expect(step.warnings).toEqual([
      `The tunnel process ${keeper.keeperPid} did not stop within 5 s of being asked, so it was killed.`
    ])
    expect(await exited).toBeDefined()
  })

  it('never signals another process that got the pid of a keeper killed with SIGKILL', async () => {
    const dir = mkdtempSync(join(runnerTemp, 'tunnel-'))
    // The keeper, killed hard, recorded no end; its pid now belongs to an unrelated process.
    const unrelated = await standIn(join(runnerTemp, 'elsewhere'), idle)
    writeFileSync(tunnelFiles(dir).statsPath, JSON.stringify({ ...running, pid: unrelated.pid }))
    try {
      const step = await runInProcess(
        () => closeTunnel({ graceMs: 200 }),
        {},
        { state: stateFor(unrelated.pid!, dir, '1'), env: env() }
      )
      expect(step.warnings).toEqual([
        expect.stringMatching(
          /^The tunnel process ended during the job, at some time after 2026-11-23T10:04:00.000Z: it was ended from outside/
        )
      ])
      expect(isProcessAlive(unrelated.pid!)).toBe(true)
      expect(unrelated.exitCode).toBeNull()
      expect(unrelated.signalCode).toBeNull()
    } finally {
      unrelated.kill('SIGKILL')
    }
  })

  it('takes a stopped keeper nobody reaps (a zombie) as stopped: no wait, no warning', async () => {
    const dir = mkdtempSync(join(runnerTemp, 'tunnel-'))
    const parent = await standIn(dir, idle, true)
    const pid = parent.keeperPid
    writeFileSync(tunnelFiles(dir).statsPath, JSON.stringify({ ...running, pid }))
    try {
      const began = Date.now()
      const step = await runInProcess(
        () => closeTunnel(),
        {},
        { state: stateFor(pid, dir, startTimeOf(pid)), env: env() }
      )
      expect(Date.now() - began).toBeLessThan(2_000)
      expect(step.warnings).toEqual([])
      // It did stop, and waits unreaped: the case post must not mistake for a running process.
      expect(readFileSync(`/proc/${pid}/stat`, 'utf8')).toMatch(/\) Z /)
    } finally {
      parent.kill('SIGKILL')
    }
  })

  it('stops a keeper main started but never configured, when main went away without ending it', async () => {
    let prepared: ReturnType<typeof prepareTunnel> | undefined
    const step = await runInProcess(
      async () => {
        prepared = prepareTunnel(
          {
            entries: [{ name: 'web', host: 'localhost', port: app.port }],
            hostKeyPins: [],
            urlTemplate: template(),
            ...DEFAULT_TRAFFIC
          },
          { ...githubHost(), tunnelProcess: () => ({ ...bundledTunnelProcess(), ...launch }) }
        )
      },
      {},
      { env: env() }
    )
    const saved = JSON.parse(step.state.tunnel) as { pid: number; started: boolean }
    expect(saved.started).toBe(false)
    expect(isProcessAlive(saved.pid)).toBe(true)
    const after = await runInProcess(() => closeTunnel(), {}, { state: step.state, env: env() })
    expect(after.warnings).toEqual([])
    for (let i = 0; i < 50 && isProcessAlive(saved.pid); i++)
      await new Promise(r => setTimeout(r, 100))
    expect(isProcessAlive(saved.pid)).toBe(false)
    await prepared?.stopUnused()
  }, 15_000)

  it('warns, sending no signal, where the pid cannot be proven and the stop is not recorded', async () => {
    const dir = mkdtempSync(join(runnerTemp, 'tunnel-'))
    writeFileSync(tunnelFiles(dir).statsPath, JSON.stringify({ ...running, pid: 2147483646 }))
    const step = await runInProcess(
      () =>
        closeTunnel({
          graceMs: 0,
          lookUp: () => ({
            state: 'unknown',
            reason: 'Windows offers no start time to check the pid against'
          }),
          signal: () => {
            throw new Error('must not signal')
          }
        }),
      {},
      { state: stateFor(2147483646, dir, '1'), env: env() }
    )
    expect(step.warnings).toEqual([
      'The tunnel process 2147483646 was asked to stop but not made to: Windows offers no start time to check the pid against, and it did not record a stop, ' +
        'so no signal was sent in case the pid now belongs to another process. If the tunnel URL still answers, end the process by hand; on a hosted runner the job end does it.'
    ])
  })

  it('warns instead of failing when stopping throws, and does nothing without a saved tunnel', async () => {
    const dir = mkdtempSync(join(runnerTemp, 'tunnel-'))
    const step = await runInProcess(
      () =>
        closeTunnel({
          lookUp: () => {
            throw new Error('no process table')
          }
        }),
      {},
      { state: stateFor(2147483646, dir, '1'), env: env() }
    )
    expect(step.failed).toBe(false)
    expect(step.warnings).toEqual([
      expect.stringMatching(/^Could not stop the tunnel process 2147483646: no process table\./)
    ])
    const none = await runInProcess(
      () => closeTunnel(),
      {},
      { state: { isPost: 'true' }, env: env() }
    )
    expect(none.lines).toEqual([])
  })
})
