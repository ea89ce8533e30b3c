/**
 * The tunnel server's per-user forward limit, through the bundled action under the runner
 * emulation: two jobs hold one credential (the second as `credential: existing`), the first
 * exposes 5 names and the second a sixth. The stand-in refuses it and says why on the session
 * channel; the second main fails at once naming the limit, hands out nothing, and the first
 * job's tunnel keeps serving.
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
  const runnerTemp = mkdtempSync(join(tmpdir(), 'forward-limit-e2e-'))
  temps.push(runnerTemp)
  return new Job({ env: { RUNNER_TEMP: runnerTemp }, timeoutMs: 30_000 })
}
const tunnelInputs = (names: string[]) => ({
  'url-template': `http://{name}-{user}.localhost:${service().tunnel!.frontPort}`,
  'timeout-seconds': '5',
  'max-attempts': '3',
  expose: names.map(name => `${name}=${web.port}`).join('\n')
})

it('fails the job whose forward is past the limit, naming the limit the server told', async () => {
  const firstJob = newJob()
  const first = (
    await firstJob.uses(inputsFor(service(), tunnelInputs(['a-0', 'b-0', 'c-0', 'd-0', 'e-0'])))
  ).main
  expect(first.exitCode).toBe(0)
  const secondJob = newJob()
  const { main: second } = await secondJob.uses({
    ...tunnelInputs(['a-1']),
    credential: 'existing',
    'tunnel-token': first.outputs.token,
    'tunnel-user': first.outputs['tunnel-user'],
    'tunnel-host': first.outputs['tunnel-host'],
    'tunnel-port': first.outputs['tunnel-port']
  })
  expect(second.exitCode).toBe(1)
  expect(annotations(second, 'error')).toEqual([
    expect.stringContaining(
      'The tunnel did not start: the tunnel server refused the forward for "a-1": it allows at ' +
        'most 5 forwards per tunnel user (all jobs sharing the credential count). Expose fewer ' +
        'entries, or run fewer jobs that expose at once with one shared credential.'
    )
  ])
  expect(second.env).toEqual({})
  expect(second.outputs).toEqual({})
  await secondJob.end()
  const user = first.outputs['tunnel-user']
  const answer = await getThroughFront(service().tunnel!.frontPort, `e-0-${user}.localhost`)
  expect(answer).toMatchObject({ status: 200 })
  await firstJob.end()
}, 90_000)
