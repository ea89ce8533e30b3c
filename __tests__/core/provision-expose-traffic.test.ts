/**
 * Main with `expose`: the gate's secret and outputs, the proof of each URL, and the check of each
 * local app, against the local service and its tunnel stand-in with the real keeper (from its
 * TypeScript source), through the in-memory host named as the action names its inputs.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startLocalApp } from '../../scripts/openssh.js'
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
let other: Server
let otherPort: number
let runnerTemp: string

beforeAll(async () => {
  service = await startCredentialService({ tunnel: { checkIntervalMs: 50 } })
  app = await startLocalApp('answer from the local app')
  // What a wrong url-template reaches: a server that answers 200, but is not this tunnel.
  other = createServer((_request, response) =>
    response.writeHead(200, { Server: 'someone-else/2.0' }).end('<h1>Welcome to nginx!</h1>')
  )
  await new Promise<void>(resolve => other.listen(0, '127.0.0.1', resolve))
  otherPort = (other.address() as AddressInfo).port
  runnerTemp = mkdtempSync(join(tmpdir(), 'expose-traffic-test-'))
})
afterAll(async () => {
  await new Promise(resolve => other.close(resolve))
  await app.close()
  await service.close()
  rmSync(runnerTemp, { recursive: true, force: true })
})

const inputs = (extra: Record<string, string> = {}) => ({
  'api-key': service.seed.provisionKey,
  project: service.seed.project,
  'base-url': service.baseUrl,
  'url-template': `http://{name}-{user}.localhost:${service.tunnel!.frontPort}`,
  'timeout-seconds': '5',
  ...extra
})
const where = () => ({
  tempRoot: runnerTemp,
  tempRootName: 'RUNNER_TEMP',
  outputsName: "the step's outputs",
  keeperLaunch: launch,
  clock: { ...systemClock, sleeps: [] }
})
const main = (extra: Record<string, string> = {}, tempRoot = runnerTemp) =>
  provisionWith(inputs(extra), { ...where(), tempRoot })
const post = (state: Record<string, string>) => revokeWith(inputs(), state, where())
/** The keeper's own log, where a secret must not be either. */
const keeperLog = (state: Record<string, string>) =>
  readFileSync(join((JSON.parse(state.tunnel) as { dir: string }).dir, 'tunnel.log'), 'utf8')
const gateRow = (step: { summaries: { rows: string[][] }[] }) =>
  step.summaries.flatMap(table => table.rows).find(([field]) => field === 'Gate')

// The gate's main side needs no answer from the keeper: the proof is off in these.
describe('main with protect', () => {
  it('makes a per-run secret, masks it before any line, and outputs its forms', async () => {
    const step = await main({ expose: `web=${app.port}`, protect: 'true', 'prove-url': 'false' })
    expect(step.errors).toEqual([])
    const secret = step.outputs['protect-secret']
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    // Masked before the first line of the log (the keeper gets it later still).
    expect(step.events.indexOf(`mask ${secret}`)).toBeGreaterThanOrEqual(0)
    expect(step.events.indexOf(`mask ${secret}`)).toBeLessThan(
      step.events.findIndex(event => /^(info|notice|warning) /.test(event))
    )
    const url = step.outputs.url
    expect(step.outputs['protect-header']).toBe(`X-Tunnel-Gate: ${secret}`)
    const browserUrl = new URL((JSON.parse(step.outputs['protect-urls']) as { web: string }).web)
    expect([browserUrl.username, browserUrl.password, browserUrl.host]).toEqual([
      'tunnel',
      secret,
      new URL(url).host
    ])
    expect(JSON.parse(step.outputs['protect-webhook-urls'])).toEqual({
      web: `${url}/_tunnel-gate/${secret}`
    })
    expect(step.env.SVC_TUNNEL_GATE_SECRET).toBe(secret)
    // The plain URLs stay free of it, and so do the log, the summary and the state for post.
    expect(step.outputs.url + step.outputs.urls).not.toContain(secret)
    expect(linesLeaking(step, secret)).toEqual([])
    expect(step.cells.join('\n')).not.toContain(secret)
    expect(JSON.stringify(step.saved)).not.toContain(secret)
    expect(keeperLog(step.saved)).not.toContain(secret)
    // Issue 26, items 10 and 11: the gate's row names the variable a CLI or GitLab job has, and
    // the outputs where the host has them; the exported line names the tunnel's variables too.
    expect(gateRow(step)?.[1]).toBe(
      'On: a request without the per-run secret gets 401 and never reaches the app. The secret is in SVC_TUNNEL_GATE_SECRET, e.g. curl -u "tunnel:$SVC_TUNNEL_GATE_SECRET" URL. ' +
        "Its forms are protect-secret, protect-header, protect-urls and protect-webhook-urls in the step's outputs."
    )
    expect(step.infos.at(-1)).toMatch(
      / Exported SVC_TUNNEL_TOKEN, _USER, _HOST, _PORT, _URL and _GATE_SECRET\.$/
    )

    const again = await main({ expose: `web=${app.port}`, protect: 'true', 'prove-url': 'false' })
    expect(again.outputs['protect-secret']).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(again.outputs['protect-secret']).not.toBe(secret)
    await post(again.saved)
    await post(step.saved)
  }, 30_000)

  it('without protect, sets no gate output, and the summary says the URLs are public and how to guard them', async () => {
    const step = await main({ expose: `web=${app.port}`, 'prove-url': 'false' })
    expect(step.errors).toEqual([])
    expect(Object.keys(step.outputs).filter(name => name.startsWith('protect-'))).toEqual([])
    expect(step.env.SVC_TUNNEL_GATE_SECRET).toBeUndefined()
    expect(gateRow(step)?.[1]).toContain('input protect')
    expect(step.infos.at(-1)).toMatch(/ Exported SVC_TUNNEL_TOKEN, _USER, _HOST, _PORT and _URL\.$/)
    await post(step.saved)
  }, 30_000)
})

describe('the URL proof', () => {
  it('fails main on a url-template that reaches another server, naming it and what answered; nothing is left', async () => {
    const template = `http://{name}-{user}.localhost:${otherPort}`
    const tempRoot = mkdtempSync(join(runnerTemp, 'own-'))
    const step = await main({ expose: `web=${app.port}`, 'url-template': template }, tempRoot)
    expect(step.failed).toBe(true)
    expect(step.errors).toEqual([expect.stringContaining('input url-template')])
    expect(step.errors[0]).toContain('someone-else/2.0')
    expect(step.errors[0]).toContain('Welcome to nginx!')
    expect(step.errors[0]).toContain('input prove-url')
    expect(step.errors[0]).toContain(
      `.localhost:${otherPort}/.well-known/tunnel-credentials-proof/`
    )
    // No output, no variable, no summary; the credential is revoked and no tunnel is left.
    expect(step.outputs).toEqual({})
    expect(step.env).toEqual({})
    expect(step.summaries).toEqual([])
    const user = service.tokens().at(-1)!.tunnel_user
    expect(service.tokens().find(t => t.tunnel_user === user)?.status).toBe('revoked')
    expect(step.saved.tunnel ?? '').toBe('')
    // Nor its request log: a CLI state file that kept it would block the next provision.
    expect(step.saved['request-log'] ?? '').toBe('')
    // The tunnel process was stopped and its folder removed.
    expect(readdirSync(tempRoot)).toEqual([])
    const after = await post(step.saved)
    expect(after.warnings).toEqual([])
  }, 30_000)

  it('with prove-url false, asks nothing and hands the URLs over', async () => {
    const template = `http://{name}-{user}.localhost:${otherPort}`
    const step = await main({
      expose: `web=${app.port}`,
      'url-template': template,
      'prove-url': 'false'
    })
    expect(step.errors).toEqual([])
    expect(step.outputs.url).toContain(`:${otherPort}`)
    const saved = JSON.parse(step.saved.tunnel) as { pid: number }
    await post(step.saved)
    expect(isProcessAlive(saved.pid)).toBe(false)
  }, 30_000)

  // Needs the keeper's side of the proof (helper K's branch): the keeper answers it itself.
  it('proves a URL that reaches this tunnel and hands it over', async () => {
    const step = await main({ expose: `web=${app.port}` })
    expect(step.errors).toEqual([])
    expect(step.infos.some(line => line.startsWith('Proved'))).toBe(true)
    expect(step.outputs.url).toBeTruthy()
    await post(step.saved)
  }, 30_000)
})

describe('the local app check', () => {
  it('warns for an entry whose app takes no connection, and not for one that does', async () => {
    const closed = createServer()
    await new Promise<void>(resolve => closed.listen(0, '127.0.0.1', resolve))
    const closedPort = (closed.address() as AddressInfo).port
    await new Promise(resolve => closed.close(resolve))
    const step = await main({
      expose: `web=${app.port}\napi=127.0.0.1:${closedPort}`,
      'prove-url': 'false'
    })
    expect(step.errors).toEqual([])
    expect(step.warnings).toEqual([expect.stringContaining(`127.0.0.1:${closedPort}`)])
    expect(step.warnings[0]).toContain('"api"')
    expect(step.warnings[0]).not.toContain('"web"')
    expect(Object.keys(JSON.parse(step.outputs.urls))).toEqual(['web', 'api'])
    await post(step.saved)
  }, 30_000)
})
