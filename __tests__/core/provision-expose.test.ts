/**
 * Main with `expose`, then post, against the local service and its tunnel stand-in; the keeper
 * runs detached from its TypeScript source (tsx). Through the in-memory host, named as the action
 * names its inputs and RUNNER_TEMP. The bundled action is proved the same way in
 * __tests__/e2e/expose.test.ts.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { getThroughFront, startLocalApp } from '../../scripts/openssh.js'
import { startCredentialService, type RunningService } from '../../service/server.js'
import { systemClock } from '../../src/core/clock.js'
import { keeperEnvironment } from '../../src/core/tunnel/main/keeper-environment.js'
import { isProcessAlive } from '../../src/core/tunnel/post/stop.js'
import { linesLeaking, provisionWith, revokeWith } from '../helpers/memory-step.js'

const launch = {
  scriptPath: fileURLToPath(new URL('../../src/core/tunnel/keeper/main.ts', import.meta.url)),
  execArgv: ['--import', 'tsx'],
  environment: keeperEnvironment(process.env, [])
}
let service: RunningService
let app: Awaited<ReturnType<typeof startLocalApp>>
let runnerTemp: string

beforeAll(async () => {
  service = await startCredentialService({ tunnel: { checkIntervalMs: 50 } })
  app = await startLocalApp('answer from the local app')
  runnerTemp = mkdtempSync(join(tmpdir(), 'expose-test-'))
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
/** The system's clock, as on a runner: the tunnel's waits are real. */
const clock = { ...systemClock, sleeps: [] }
const where = (tempRoot = runnerTemp) => ({
  tempRoot,
  tempRootName: 'RUNNER_TEMP',
  keeperLaunch: launch,
  clock
})
const main = (extra: Record<string, string> = {}, tempRoot?: string) =>
  provisionWith(inputs(extra), where(tempRoot))
const post = (state: Record<string, string>, extra: Record<string, string> = {}) =>
  revokeWith(inputs(extra), state, where())
const hostOf = (url: string) => new URL(url).hostname

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
    expect(step.summaries.map(table => table.heading)).toContain('Tunnel URLs')
    expect(step.summaries.flatMap(table => table.rows)).toContainEqual(['api', urls.api])
    expect(step.lines).toContain(`Exposed web: ${urls.web}`)
    const fingerprint = service.tunnel!.fingerprint
    expect(step.notices).toEqual([
      `The tunnel server's host key is ${fingerprint}; it was accepted because input tunnel-host-key is empty. To refuse any other key, set input tunnel-host-key: ${fingerprint}`
    ])
    expect(linesLeaking(step, step.outputs.token)).toEqual([])
    const saved = JSON.parse(step.saved.tunnel) as { pid: number }
    expect(Object.keys(saved).sort()).toEqual(['dir', 'dirId', 'pid', 'startTime', 'started'])
    expect(step.saved.tunnel).not.toContain(step.outputs.token)

    for (const url of Object.values(urls)) {
      expect(await getThroughFront(service.tunnel!.frontPort, hostOf(url))).toMatchObject({
        status: 200
      })
    }

    const after = await post(step.saved)
    expect(after.warnings).toEqual([])
    expect(after.infos).toEqual([
      expect.stringMatching(
        /^Tunnel: up \d+ s, never down; 2 connections \(\d+ requests: a connection can carry several\), \d+ B in \/ \d+ B out, 0 reconnects, 0 local connection errors\.$/
      ),
      `Revoked the tunnel token of user ${user}.`
    ])
    expect(isProcessAlive(saved.pid)).toBe(false)
    expect((await getThroughFront(service.tunnel!.frontPort, hostOf(urls.web))).status).toBe(502)
  }, 30_000)

  it('stops the tunnel when a later step emptied its directory, and says its record is lost', async () => {
    const step = await main({ expose: `web=${app.port}` })
    expect(step.errors).toEqual([])
    const saved = JSON.parse(step.saved.tunnel) as { pid: number; dir: string }
    // A later step of the job cleans RUNNER_TEMP under the running tunnel.
    rmSync(saved.dir, { recursive: true, force: true })
    expect(
      await getThroughFront(service.tunnel!.frontPort, hostOf(step.outputs.url))
    ).toMatchObject({ status: 200 })
    const after = await post(step.saved)
    expect(after.warnings).toEqual([
      `The tunnel process ${saved.pid} was stopped, but its directory ${saved.dir} could not be used (it no longer exists), so its log and counters are lost. ` +
        'Check whether a step of the job deletes or replaces files in RUNNER_TEMP.'
    ])
    expect(isProcessAlive(saved.pid)).toBe(false)
    expect(
      (await getThroughFront(service.tunnel!.frontPort, hostOf(step.outputs.url))).status
    ).toBe(502)
  }, 30_000)

  it('says the free credential ends the tunnel after 5 minutes', async () => {
    const step = await main({ credential: 'free', 'api-key': '', expose: String(app.port) })
    expect(step.errors).toEqual([])
    expect(step.lines).toContain(
      `The credential is free, so the tunnel ends when the credential does: after 5 minutes (limits.max_uptime_minutes), at ${step.outputs['expires-at']}.`
    )
    expect(JSON.parse(step.outputs.urls)).toEqual({ app: step.outputs.url })
    const after = await post(step.saved, { credential: 'free', 'api-key': '' })
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
        'The tunnel did not start: the tunnel server refused the forward for "f": it allows at most 5 forwards per tunnel user'
      )
    ])
    const user = service.tokens().at(-1)!.tunnel_user
    expect(step.lines).toContain(
      `Revoked the credential of tunnel user ${user}, which this step could not use.`
    )
    expect(service.tokens().find(t => t.tunnel_user === user)?.status).toBe('revoked')
    expect(step.saved.tunnel ?? '').toBe('')
    // All or nothing: not the revoked token, nor any output or summary of the failed step.
    expect(step.env).toEqual({})
    expect(step.outputs).toEqual({})
    expect(step.summaries).toEqual([])
    const after = await post(step.saved)
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
        'The tunnel did not start: the tunnel server refused the forward for "f": it allows at most 5 forwards per tunnel user'
      )
    ])
    const key = service.sshKeys().at(-1)!
    expect(key.status).toBe('revoked')
    expect(step.lines).toContain(
      `Revoked the uploaded SSH key ${key.fingerprint} (id ${key.id}), which this step could not use.`
    )
    expect(step.env).toEqual({})
    expect(step.outputs).toEqual({})
    expect(step.summaries).toEqual([])
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
    expect(step.saved.tunnel).toBe('')
    // The keeper started before the request (to overlap it) is gone with its directory.
    expect(readdirSync(runnerTemp)).toEqual(before)
  })

  it('fails before asking for a credential when the tunnel process cannot start', async () => {
    service.clearRequests()
    const step = await main({ expose: `web=${app.port}` }, join(runnerTemp, 'missing', 'folder'))
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
    expect(step.saved.tunnel ?? '').toBe('')
  })

  it('fails before any request when the default template meets an IPv4 tunnel host', async () => {
    service.clearRequests()
    const step = await main({ expose: '3000', 'url-template': '', 'tunnel-host': '10.0.0.5' })
    expect(step.errors).toEqual([
      expect.stringMatching(
        /^Input url-template is empty, and the form it stands for, "https:\/\/\{name\}\.\{host\}", does not form a URL for "app" with tunnel host 10\.0\.0\.5: the tunnel host is an IPv4 address, .* Nothing was requested from the credential service\.$/
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
