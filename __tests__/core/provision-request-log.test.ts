/**
 * Main's side of the request log, through the in-memory host (named as on GitHub): where the HAR
 * goes (beside the tunnel's folder in RUNNER_TEMP, never in it), what the tunnel process is told
 * (requestLogFiles, publicUrls), the `request-log` output and what post finds in the state.
 * A stand-in keeper that records its configuration shows what main sends; the real keeper against
 * the tunnel stand-in shows the HAR and post's table for a request sent through the tunnel.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { getThroughFront, startLocalApp } from '../../scripts/openssh.js'
import { startCredentialService, type RunningService } from '../../service/server.js'
import { systemClock } from '../../src/core/clock.js'
import { keeperEnvironment } from '../../src/core/tunnel/main/keeper-environment.js'
import type { KeeperConfig } from '../../src/core/tunnel/protocol.js'
import { SUMMARY_COLUMNS } from '../../src/core/tunnel/request-log/summary.js'
import { provisionWith, revokeWith } from '../helpers/memory-step.js'
import { readValidHar } from './tunnel/request-log/records.js'

let service: RunningService
let app: Awaited<ReturnType<typeof startLocalApp>>
let runnerTemp: string
let scratch: string

beforeAll(async () => {
  service = await startCredentialService({ tunnel: { checkIntervalMs: 50 } })
  app = await startLocalApp('answer from the local app')
  scratch = mkdtempSync(join(tmpdir(), 'request-log-scratch-'))
})
afterAll(async () => {
  await app.close()
  await service.close()
  rmSync(scratch, { recursive: true, force: true })
})
beforeEach(() => (runnerTemp = mkdtempSync(join(tmpdir(), 'request-log-test-'))))
afterEach(() => rmSync(runnerTemp, { recursive: true, force: true }))

const template = () => `http://{name}-{user}.localhost:${service.tunnel!.frontPort}`
const inputs = (extra: Record<string, string> = {}) => ({
  'api-key': service.seed.provisionKey,
  project: service.seed.project,
  'base-url': service.baseUrl,
  'url-template': template(),
  'timeout-seconds': '5',
  ...extra
})
const clock = { ...systemClock, sleeps: [] }

/**
 * A keeper that writes what main sent it (the request log's part only: never the token) to
 * `configOut`, says it is ready, and waits to be stopped, as the real one does.
 */
function standInKeeper(): { scriptPath: string; configOut: string } {
  const configOut = join(scratch, `config-${Math.random().toString(36).slice(2)}.json`)
  const scriptPath = join(scratch, 'stand-in-keeper.cjs')
  writeFileSync(
    scriptPath,
    `process.once('message', config => {
  const { requestLog, requestLogFiles, publicUrls } = config
  require('fs').writeFileSync(process.env.CONFIG_OUT, JSON.stringify({ requestLog, requestLogFiles, publicUrls }))
  process.send({ type: 'ready', fingerprint: 'SHA256:stand-in' })
})
process.on('disconnect', () => setInterval(() => {}, 1000))
process.on('SIGTERM', () => process.exit(0))
`
  )
  return { scriptPath, configOut }
}

async function mainWithStandIn(extra: Record<string, string>) {
  const keeper = standInKeeper()
  const step = await provisionWith(inputs({ 'prove-url': 'false', ...extra }), {
    tempRoot: runnerTemp,
    tempRootName: 'RUNNER_TEMP',
    keeperLaunch: {
      scriptPath: keeper.scriptPath,
      execArgv: [],
      environment: { CONFIG_OUT: keeper.configOut }
    },
    clock
  })
  const sent = JSON.parse(readFileSync(keeper.configOut, 'utf8')) as Partial<KeeperConfig>
  return { step, sent }
}

describe('what main tells the tunnel process, and hands over', () => {
  it('puts the HAR beside the tunnel folder in RUNNER_TEMP, its work files in the folder', async () => {
    const { step, sent } = await mainWithStandIn({ expose: `web=${app.port}\napi=${app.port}` })
    expect(step.errors).toEqual([])
    const tunnelDir = (JSON.parse(step.saved.tunnel) as { dir: string }).dir
    const files = sent.requestLogFiles!
    expect(dirname(files.harPath)).toBe(runnerTemp)
    expect(basename(files.harPath)).toBe(
      `tunnel-credentials-requests-42-${basename(tunnelDir)}.har`
    )
    expect(dirname(files.spoolPath)).toBe(tunnelDir)
    expect(dirname(files.tallyPath)).toBe(tunnelDir)
    expect(sent.publicUrls).toEqual(JSON.parse(step.outputs.urls))
    expect(step.outputs['request-log']).toBe(files.harPath)
    expect(JSON.parse(step.saved['request-log'])).toEqual({
      harPath: files.harPath,
      tallyPath: files.tallyPath
    })
    expect(step.lines.join('\n')).toContain(files.harPath)
    // Post stops the stand-in and removes the folder.
    const after = await revokeWith(inputs(), step.saved, { tempRoot: runnerTemp, clock })
    expect(existsSync(tunnelDir)).toBe(false)
    expect(after.outcome.tunnel.status).toBe('stopped')
  })

  it('with log-requests false: no log files, no output, nothing saved for post', async () => {
    const { step, sent } = await mainWithStandIn({
      expose: `web=${app.port}`,
      'log-requests': 'false'
    })
    expect(step.errors).toEqual([])
    expect(sent.requestLogFiles).toBeUndefined()
    expect(sent.requestLog?.enabled).toBe(false)
    expect(step.outputs['request-log']).toBeUndefined()
    expect(step.saved['request-log']).toBeUndefined()
    await revokeWith(inputs(), step.saved, { tempRoot: runnerTemp, clock })
  })

  it('writes the HAR where the host says (the CLI: --request-log)', async () => {
    const keeper = standInKeeper()
    const harPath = join(runnerTemp, 'logs.har')
    const step = await provisionWith(inputs({ 'prove-url': 'false', expose: `web=${app.port}` }), {
      tempRoot: runnerTemp,
      requestLog: harPath,
      keeperLaunch: {
        scriptPath: keeper.scriptPath,
        execArgv: [],
        environment: { CONFIG_OUT: keeper.configOut }
      },
      clock
    })
    expect(step.outputs['request-log']).toBe(harPath)
    const sent = JSON.parse(readFileSync(keeper.configOut, 'utf8')) as Partial<KeeperConfig>
    expect(sent.requestLogFiles?.harPath).toBe(harPath)
    await revokeWith(inputs(), step.saved, { tempRoot: runnerTemp, requestLog: harPath, clock })
  })
})

describe('a tunnel that fails to start', () => {
  /** A keeper that fails, after starting its log as the real one does before it connects, or not. */
  function failingKeeper(startsLog = true): string {
    const scriptPath = join(scratch, `failing-keeper-${startsLog}.cjs`)
    const start = startsLog
      ? `require('fs').writeFileSync(config.requestLogFiles.harPath, '{"log":{"version":"1.2","creator":{"name":"tunnel-credentials"},"entries":[]}}')`
      : ''
    writeFileSync(
      scriptPath,
      `process.once('message', config => {
  ${start}
  process.send({ type: 'failed', cause: 'auth', detail: 'the server refused the token' })
  process.exit(1)
})
`
    )
    return scriptPath
  }
  const failingMain = (more: { requestLog?: string } = {}, startsLog = true) =>
    provisionWith(inputs({ 'prove-url': 'false', expose: `web=${app.port}` }), {
      tempRoot: runnerTemp,
      keeperLaunch: { scriptPath: failingKeeper(startsLog), execArgv: [], environment: {} },
      clock,
      ...more
    })

  it('leaves no log beside its folder: nothing of it is left in RUNNER_TEMP', async () => {
    const step = await failingMain()
    expect(step.errors).toEqual([expect.stringContaining('the server refused the token')])
    expect(step.outputs).toEqual({})
    expect(readdirSync(runnerTemp)).toEqual([])
  })

  it('at a path the user chose (the CLI), removes the empty log it made', async () => {
    const step = await failingMain({ requestLog: join(runnerTemp, 'requests.har') })
    expect(step.errors).toHaveLength(1)
    expect(readdirSync(runnerTemp)).toEqual([])
  })

  it("at a path the user chose, leaves an earlier run's log that this run never replaced", async () => {
    const harPath = join(runnerTemp, 'requests.har')
    const earlier =
      '{"log":{"version":"1.2","creator":{"name":"tunnel-credentials","version":"1"},"entries":[{"_entry":"web"}]}}'
    writeFileSync(harPath, earlier)
    const step = await failingMain({ requestLog: harPath }, false)
    expect(step.errors).toHaveLength(1)
    expect(readFileSync(harPath, 'utf8')).toBe(earlier)
  })
})

/** Needs the keeper's request log (the tunnel-process side of issue 23, section 1). */
describe('with the real keeper against the tunnel stand-in', () => {
  const launch = {
    scriptPath: fileURLToPath(new URL('../../src/core/tunnel/keeper/main.ts', import.meta.url)),
    execArgv: ['--import', 'tsx'],
    environment: keeperEnvironment(process.env, [])
  }
  const where = { tempRoot: '', tempRootName: 'RUNNER_TEMP', keeperLaunch: launch, clock }

  it('leaves a valid HAR at the request-log path when main returns; post tables the request', async () => {
    const step = await provisionWith(inputs({ expose: `web=${app.port}` }), {
      ...where,
      tempRoot: runnerTemp
    })
    expect(step.errors).toEqual([])
    const harPath = step.outputs['request-log']
    // Valid at once, before any request: an upload step run now gets a file that opens.
    expect((await readValidHar(harPath)).log.entries).toEqual([])

    const host = new URL(step.outputs.url).hostname
    expect(
      await getThroughFront(service.tunnel!.frontPort, host, '/hooks/order?id=7')
    ).toMatchObject({ status: 200 })

    const after = await revokeWith(inputs(), step.saved, { ...where, tempRoot: runnerTemp })
    const [requests] = after.outcome.requests!.summary
    const paths = requests.rows.map(row => row[SUMMARY_COLUMNS.indexOf('Path')])
    expect(paths).toContain('/hooks/order?id=REDACTED')
    expect(requests.lines!.join('\n')).toContain(harPath)
    expect(after.outcome.requests!.tunnelLine).toEqual(expect.any(String))
    // The HAR stays after post, with the request in it; the tunnel's folder is gone.
    const har = await readValidHar(harPath)
    expect(har.log.entries.map(entry => new URL(entry.request.url).pathname)).toContain(
      '/hooks/order'
    )
    expect(readdirSync(runnerTemp)).toEqual([basename(harPath)])
  }, 30_000)
})
