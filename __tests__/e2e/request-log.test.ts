/**
 * The request log through the bundled action under the runner emulation (Node 24, main and post
 * as separate processes, the tunnel process detached): the `request-log` output names a HAR that
 * a real HAR consumer accepts as soon as main has exited, a request through the tunnel reaches
 * post's job summary with the HAR's path, and the HAR stays in RUNNER_TEMP after post for an
 * upload step. Needs the bundle (npm run bundle) with the tunnel process's request log.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { Job } from '../../scripts/job.js'
import { getThroughFront, startLocalApp } from '../../scripts/openssh.js'
import { readValidHar } from '../core/tunnel/request-log/records.js'
import { annotations, inputsFor, useService } from './helpers.js'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
let web: Awaited<ReturnType<typeof startLocalApp>>
const temps: string[] = []

beforeAll(async () => (web = await startLocalApp('answer from web')))
afterAll(async () => {
  await web?.close()
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

it('writes a HAR named by the request-log output; post tables the request and keeps the HAR', async () => {
  const runnerTemp = mkdtempSync(join(tmpdir(), 'request-log-e2e-'))
  temps.push(runnerTemp)
  const job = new Job({ env: { RUNNER_TEMP: runnerTemp }, timeoutMs: 30_000 })
  const use = await job.uses(
    inputsFor(service(), {
      'url-template': `http://{name}-{user}.localhost:${service().tunnel!.frontPort}`,
      'timeout-seconds': '5',
      expose: `web=${web.port}`
    })
  )
  const { main } = use
  expect(main.exitCode).toBe(0)
  const harPath = main.outputs['request-log']
  // Beside the tunnel's folder in RUNNER_TEMP, not in it; valid before any request.
  expect(dirname(harPath)).toBe(runnerTemp)
  expect((await readValidHar(harPath)).log.entries).toEqual([])

  const host = new URL(main.outputs.url).hostname
  const answer = await getThroughFront(service().tunnel!.frontPort, host, '/hooks/order')
  expect(answer.status).toBe(200)

  const post = await use.post()
  expect(post.exitCode).toBe(0)
  expect(annotations(post, 'warning')).toEqual([])
  expect(post.summary).toMatch(/<th>Path<\/th>/)
  expect(post.summary).toContain('<td>/hooks/order</td>')
  expect(post.summary).toContain(harPath)
  expect(post.summary).toMatch(
    /Tunnel: up \d+ s, never down; \d+ connections? \(\d+ requests?: a connection can carry several\)/
  )
  // The HAR stays for upload-artifact (which runs before post); the tunnel's folder is gone.
  expect(readdirSync(runnerTemp)).toEqual([basename(harPath)])
  const har = await readValidHar(harPath)
  expect(har.log.entries.map(entry => new URL(entry.request.url).pathname)).toContain(
    '/hooks/order'
  )
  expect(existsSync(harPath)).toBe(true)
  await job.end()
}, 60_000)
