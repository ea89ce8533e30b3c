/**
 * A run in miniature through the in-memory host, against the local service and its tunnel
 * stand-in: a setup job shares one credential, two jobs open it and expose their own names (each
 * reaching the app), their posts stop their tunnels and revoke nothing, and a final job revokes
 * the credential once. A tunnel that fails under `use` revokes nothing either.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { getThroughFront, startLocalApp } from '../../../scripts/openssh.js'
import { startCredentialService, type RunningService } from '../../../service/server.js'
import { systemClock } from '../../../src/core/clock.js'
import { keeperEnvironment } from '../../../src/core/tunnel/main/keeper-environment.js'
import { isProcessAlive } from '../../../src/core/tunnel/post/stop.js'
import { linesLeaking, provisionWith, revokeWith } from '../../helpers/memory-step.js'
import { RUN_SCOPE } from '../../helpers/share-scope.js'

const launch = {
  scriptPath: fileURLToPath(new URL('../../../src/core/tunnel/keeper/main.ts', import.meta.url)),
  execArgv: ['--import', 'tsx'],
  environment: keeperEnvironment(process.env, [])
}
let service: RunningService
let app: Awaited<ReturnType<typeof startLocalApp>>
let runnerTemp: string

beforeAll(async () => {
  service = await startCredentialService({ tunnel: { checkIntervalMs: 50 } })
  app = await startLocalApp('answer from the local app')
  runnerTemp = mkdtempSync(join(tmpdir(), 'share-expose-'))
})
afterAll(async () => {
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
  keeperLaunch: launch,
  clock: { ...systemClock, sleeps: [] },
  shareScope: RUN_SCOPE
})
const job = (extra: Record<string, string>) => provisionWith(inputs(extra), where())
const post = (extra: Record<string, string>, state: Record<string, string>) =>
  revokeWith(inputs(extra), state, where())
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms
  while (isProcessAlive(pid)) {
    if (Date.now() > end) return false
    await new Promise(resolve => setTimeout(resolve, 20))
  }
  return true
}
const hostOf = (url: string) => new URL(url).hostname
const calls = (endpoint: string) =>
  service.requests().filter(request => request.path.endsWith(`/${endpoint}`)).length

it('shares one credential: two jobs expose their own names through it, and only the final job revokes it', async () => {
  const provisions = calls('credential-provision')
  const revokes = calls('revoke-token')
  const setupInputs = { share: 'create', 'ttl-minutes': '30' }
  const setup = await job(setupInputs)
  expect(setup.errors).toEqual([])
  const user = setup.outputs['tunnel-user']
  const shared = { share: 'use', 'shared-credential': setup.outputs['shared-credential'] }

  const jobs = [
    await job({ ...shared, expose: `web-0=${app.port}` }),
    await job({ ...shared, expose: `web-1=${app.port}` })
  ]
  for (const [index, step] of jobs.entries()) {
    expect(step.errors).toEqual([])
    expect(step.outputs.url).toBe(
      `http://web-${index}-${user}.localhost:${service.tunnel!.frontPort}`
    )
    expect(linesLeaking(step, setup.outputs.token)).toEqual([])
  }
  // Both tunnels serve at once, each under its own name.
  for (const step of jobs) {
    expect(
      await getThroughFront(service.tunnel!.frontPort, hostOf(step.outputs.url))
    ).toMatchObject({ status: 200 })
  }

  for (const [index, step] of jobs.entries()) {
    const pid = (JSON.parse(step.saved.tunnel) as { pid: number }).pid
    const after = await post({ ...shared, expose: `web-${index}=${app.port}` }, step.saved)
    expect(after.outcome.tunnel).toEqual({ status: 'stopped' })
    expect(after.outcome.credential).toEqual({ status: 'kept' })
    // This test process started it, so it is gone once its exit is reaped: a turn of the loop.
    expect(await goneWithin(pid, 2000)).toBe(true)
  }
  const setupPost = await post(setupInputs, setup.saved)
  expect(setupPost.outcome.credential).toEqual({ status: 'kept' })
  expect(service.tokens().find(token => token.tunnel_user === user)?.status).toBe('active')

  const final = await job({
    share: 'revoke',
    'shared-credential': setup.outputs['shared-credential']
  })
  expect(final.errors).toEqual([])
  expect(calls('credential-provision')).toBe(provisions + 1)
  expect(calls('revoke-token')).toBe(revokes + 1)
  expect(service.tokens().find(token => token.tunnel_user === user)?.status).toBe('revoked')
}, 60_000)

it('revokes nothing when its tunnel fails under use', async () => {
  const setup = await job({ share: 'create', 'ttl-minutes': '30' })
  const user = setup.outputs['tunnel-user']
  const revokes = calls('revoke-token')
  // The stand-in refuses a sixth forward of one tunnel user.
  const six = ['a', 'b', 'c', 'd', 'e', 'f'].map(name => `${name}=${app.port}`).join('\n')
  const step = await job({
    share: 'use',
    'shared-credential': setup.outputs['shared-credential'],
    expose: six
  })
  expect(step.errors).toEqual([
    expect.stringContaining(
      'The tunnel did not start: the tunnel server refused the forward for "f".'
    )
  ])
  expect([step.env, step.outputs]).toEqual([{}, {}])
  expect(step.saved.credential ?? '').toBe('')
  expect(step.saved.tunnel ?? '').toBe('')
  expect(calls('revoke-token')).toBe(revokes)
  expect(service.tokens().find(token => token.tunnel_user === user)?.status).toBe('active')
}, 60_000)
