/**
 * Names collide (issue 27), through the bundled action under the runner emulation: the tunnel
 * server registers a forward by its name, so a second job asking for a name in use is refused.
 * An SSH refusal carries no reason; the stand-in says it on its console. Main fails at once with
 * one error that says the name is taken and what to do (naming the option as the action's
 * input), hands out nothing, and the first job's tunnel keeps serving. Without the server's word
 * the error stays as it was (__tests__/core/provision-collision.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Job } from '../../scripts/job.js'
import { getThroughFront, startLocalApp } from '../../scripts/openssh.js'
import { annotations, inputsFor, useService } from './helpers.js'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
let web: Awaited<ReturnType<typeof startLocalApp>>
const temps: string[] = []
beforeAll(async () => (web = await startLocalApp('answer from the first job')))
afterAll(async () => {
  await web?.close()
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

function newJob(): Job {
  const runnerTemp = mkdtempSync(join(tmpdir(), 'collision-e2e-'))
  temps.push(runnerTemp)
  return new Job({ env: { RUNNER_TEMP: runnerTemp }, timeoutMs: 30_000 })
}
const tunnelInputs = () => ({
  'url-template': `http://{name}-{user}.localhost:${service().tunnel!.frontPort}`,
  'timeout-seconds': '5',
  'max-attempts': '3',
  expose: `web=${web.port}`
})

it('fails the second job at once, saying the name is taken and what to do', async () => {
  const firstJob = newJob()
  const { main: first } = await firstJob.uses(inputsFor(service(), tunnelInputs()))
  expect(first.exitCode).toBe(0)
  // A second job holding the same credential asks for the same name: the same host name.
  const secondJob = newJob()
  const started = Date.now()
  const { main: second } = await secondJob.uses({
    ...tunnelInputs(),
    credential: 'existing',
    'tunnel-token': first.outputs.token,
    'tunnel-user': first.outputs['tunnel-user'],
    'tunnel-host': first.outputs['tunnel-host'],
    'tunnel-port': first.outputs['tunnel-port']
  })
  const took = Date.now() - started
  expect(second.exitCode).toBe(1)
  expect(annotations(second, 'error')).toEqual([
    'The tunnel did not start: the name web is taken on the tunnel server, by another job ' +
      'sharing this credential or by another tunnel. Give each job its own names in input ' +
      'expose, e.g. web-${{ strategy.job-index }} on GitHub or web-{index} with the GitLab component.'
  ])
  // At once: one attempt, not three of 5 s each.
  expect(took).toBeLessThan(8_000)
  expect(second.env).toEqual({})
  expect(second.outputs).toEqual({})
  await secondJob.end()
  const host = new URL(first.outputs.url).hostname
  expect(await getThroughFront(service().tunnel!.frontPort, host)).toMatchObject({ status: 200 })
  await firstJob.end()
}, 90_000)
