/**
 * Names collide (issue 27): the tunnel server registers a forward by its name, so a second
 * tunnel asking for a name in use is refused, and an SSH refusal carries no reason. Main then
 * fails at once, with one error that names the entry and says the name may be in use, hands out
 * nothing, and leaves the first tunnel serving. Against the service's tunnel stand-in, through
 * the in-memory host; the CLI shows the same in __tests__/cli/packed-collision.test.ts.
 */
import { fileURLToPath } from 'node:url'
import { getThroughFront, startLocalApp } from '../../scripts/openssh.js'
import { startCredentialService, type RunningService } from '../../service/server.js'
import { systemClock } from '../../src/core/clock.js'
import { keeperEnvironment } from '../../src/core/tunnel/main/keeper-environment.js'
import { provisionWith, revokeWith } from '../helpers/memory-step.js'

const launch = {
  scriptPath: fileURLToPath(new URL('../../src/core/tunnel/keeper/main.ts', import.meta.url)),
  execArgv: ['--import', 'tsx'],
  environment: keeperEnvironment(process.env, [])
}
let service: RunningService
let app: Awaited<ReturnType<typeof startLocalApp>>

beforeAll(async () => {
  service = await startCredentialService({ tunnel: { checkIntervalMs: 50 } })
  app = await startLocalApp('the first tunnel')
})
afterAll(async () => {
  await app.close()
  await service.close()
})

const where = { keeperLaunch: launch, clock: { ...systemClock, sleeps: [] } }
const inputs = (extra: Record<string, string>) => ({
  'url-template': `http://{name}-{user}.localhost:${service.tunnel!.frontPort}`,
  'timeout-seconds': '5',
  'max-attempts': '3',
  expose: `web=${app.port}`,
  ...extra
})
it('fails the second tunnel at once, naming the entry and saying the name may be in use', async () => {
  const first = await provisionWith(
    inputs({
      'api-key': service.seed.provisionKey,
      project: service.seed.project,
      'base-url': service.baseUrl
    }),
    where
  )
  expect(first.errors).toEqual([])
  // A second job holding the same credential asks for the same name: the same host name.
  const started = Date.now()
  const second = await provisionWith(
    inputs({
      credential: 'existing',
      'tunnel-token': first.outputs.token,
      'tunnel-user': first.outputs['tunnel-user'],
      'tunnel-host': first.outputs['tunnel-host'],
      'tunnel-port': first.outputs['tunnel-port']
    }),
    where
  )
  const took = Date.now() - started
  expect(second.errors).toEqual([
    'The tunnel did not start: the tunnel server refused the forward for "web". The name may be in use: ' +
      'by another tunnel of this user, or, where the URLs do not carry the user, of anyone on that server. ' +
      'Or the server limits how many forwards one tunnel user holds (an SSH refusal gives no reason). ' +
      'Choose another name in expose, or expose fewer entries.'
  ])
  // At once: one attempt, not the three max-attempts of 5 s each that a retry would spend.
  expect(took).toBeLessThan(5_000)
  expect(second.outputs).toEqual({})
  expect(second.env).toEqual({})
  // The first tunnel still serves its URL.
  const host = new URL(first.outputs.url).hostname
  expect(await getThroughFront(service.tunnel!.frontPort, host)).toMatchObject({ status: 200 })
  await revokeWith(
    inputs({ 'api-key': service.seed.provisionKey, 'base-url': service.baseUrl }),
    first.saved,
    where
  )
}, 60_000)
