/**
 * A runner that gives each step its own RUNNER_TEMP: post cannot use the tunnel folder main made,
 * but still stops the tunnel process once its identity is proven, and says what it left.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { getThroughFront, startLocalApp } from '../../scripts/openssh.js'
import { startCredentialService, type RunningService } from '../../service/server.js'
import { runMain, runPost } from '../helpers/github-steps.js'
import { runInProcess } from '../helpers/in-process-step.js'
import { isProcessAlive } from '../../src/core/tunnel/post/stop.js'

const launch = {
  scriptPath: fileURLToPath(new URL('../../src/core/tunnel/keeper/main.ts', import.meta.url)),
  execArgv: ['--import', 'tsx']
}
let service: RunningService
let app: Awaited<ReturnType<typeof startLocalApp>>
const temps: string[] = []
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'own-temp-test-'))
  temps.push(dir)
  return dir
}

beforeAll(async () => {
  service = await startCredentialService({ tunnel: { checkIntervalMs: 50 } })
  app = await startLocalApp('answer from the local app')
})
afterAll(async () => {
  await app.close()
  await service.close()
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

it('stops the tunnel process whose folder is in main’s RUNNER_TEMP, and warns about the folder', async () => {
  const inputs = {
    'api-key': service.seed.provisionKey,
    project: service.seed.project,
    'base-url': service.baseUrl,
    'url-template': `http://{name}-{user}.localhost:${service.tunnel!.frontPort}`,
    'timeout-seconds': '5',
    expose: `web=${app.port}`
  }
  const main = await runInProcess(() => runMain(undefined, launch), inputs, {
    env: { RUNNER_TEMP: scratch() }
  })
  expect(main.errors).toEqual([])
  const { pid, dir } = JSON.parse(main.state.tunnel) as { pid: number; dir: string }
  const host = new URL(main.outputs.url).hostname
  expect(await getThroughFront(service.tunnel!.frontPort, host)).toMatchObject({ status: 200 })

  const post = await runInProcess(() => runPost(), inputs, {
    state: main.state,
    env: { RUNNER_TEMP: scratch() }
  })
  expect(post.failed).toBe(false)
  for (let i = 0; i < 30 && isProcessAlive(pid); i++) await new Promise(r => setTimeout(r, 100))
  expect(isProcessAlive(pid)).toBe(false)
  expect((await getThroughFront(service.tunnel!.frontPort, host)).status).toBe(502)
  // Said, naming the folder it did not touch; and the folder is left as it was.
  expect(post.warnings).toEqual([expect.stringContaining(dir)])
  expect(existsSync(dir)).toBe(true)
  expect(service.tokens().find(t => t.tunnel_user === main.outputs['tunnel-user'])?.status).toBe(
    'revoked'
  )
}, 30_000)
