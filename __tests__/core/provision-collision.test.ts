/**
 * Names collide (issue 27): the tunnel server registers a forward by its name, so a second
 * tunnel asking for a name in use is refused. An SSH refusal carries no reason; the stand-in
 * says it on its console (issue 28), and main then says the name is taken and what to do. A
 * server that says nothing gets the old error, which says the name may be in use. Either way
 * main fails at once, hands out nothing, and leaves the first tunnel serving. Against the service's tunnel stand-in, through
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
/** A tunnel server that says nothing on its console: an SSH refusal then carries no reason. */
let silent: RunningService
let app: Awaited<ReturnType<typeof startLocalApp>>

beforeAll(async () => {
  service = await startCredentialService({ tunnel: { checkIntervalMs: 50 } })
  silent = await startCredentialService({ tunnel: { checkIntervalMs: 50, silentConsole: true } })
  app = await startLocalApp('the first tunnel')
})
afterAll(async () => {
  await app.close()
  await service.close()
  await silent.close()
})

const where = { keeperLaunch: launch, clock: { ...systemClock, sleeps: [] } }
const inputs = (on: RunningService, extra: Record<string, string>) => ({
  'url-template': `http://{name}-{user}.localhost:${on.tunnel!.frontPort}`,
  'timeout-seconds': '5',
  'max-attempts': '3',
  expose: `web=${app.port}`,
  ...extra
})

it.each([
  [
    'the server says the name is taken',
    () => service,
    'The tunnel did not start: the name web is taken on the tunnel server, by another job sharing ' +
      'this credential or by another tunnel. Give each job its own names in input expose, e.g. ' +
      'web-${{ strategy.job-index }} on GitHub or web-{index} with the GitLab component.'
  ],
  [
    'the server says nothing',
    () => silent,
    'The tunnel did not start: the tunnel server refused the forward for "web". The name may be in use: ' +
      'by another tunnel of this user, or, where the URLs do not carry the user, of anyone on that server. ' +
      'Or the server limits how many forwards one tunnel user holds (an SSH refusal gives no reason). ' +
      'Choose another name in expose, or expose fewer entries.'
  ]
])(
  'fails the second tunnel at once when %s, and the first serves on',
  async (_case, on, error) => {
    const server = on()
    const first = await provisionWith(
      inputs(server, {
        'api-key': server.seed.provisionKey,
        project: server.seed.project,
        'base-url': server.baseUrl
      }),
      where
    )
    expect(first.errors).toEqual([])
    // A second job holding the same credential asks for the same name: the same host name.
    const started = Date.now()
    const second = await provisionWith(
      inputs(server, {
        credential: 'existing',
        'tunnel-token': first.outputs.token,
        'tunnel-user': first.outputs['tunnel-user'],
        'tunnel-host': first.outputs['tunnel-host'],
        'tunnel-port': first.outputs['tunnel-port']
      }),
      where
    )
    const took = Date.now() - started
    expect(second.errors).toEqual([error])
    // At once: one attempt, not the three max-attempts of 5 s each that a retry would spend.
    expect(took).toBeLessThan(5_000)
    expect(second.outputs).toEqual({})
    expect(second.env).toEqual({})
    // The first tunnel still serves its URL.
    const host = new URL(first.outputs.url).hostname
    expect(await getThroughFront(server.tunnel!.frontPort, host)).toMatchObject({ status: 200 })
    await revokeWith(
      inputs(server, { 'api-key': server.seed.provisionKey, 'base-url': server.baseUrl }),
      first.saved,
      where
    )
  },
  60_000
)
