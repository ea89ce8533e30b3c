/**
 * One credential for a GitLab pipeline, with the packed package as each job installs it: a setup
 * job (`provision --share create`), two jobs that each expose their own name through the shared
 * credential (`provision --share use --expose`), and a final job (`revoke --share revoke`). Each
 * job has its own folder; they share CI_PROJECT_PATH and CI_PIPELINE_ID, and the setup job's
 * shared.env, as its dotenv report would give it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { requestPaths, statusOf, useService } from '../e2e/helpers.js'
import {
  expectNoSecretPrinted,
  fetchUrl,
  loadEnvFile,
  stillRunning,
  tunnelPid,
  useCliJob
} from './cli-job.js'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
const pipeline = useCliJob(service)
const APP_ANSWER = 'answer from your local app (GET /)\n'

const GITLAB = { GITLAB_CI: 'true', CI_PROJECT_PATH: 'acme/web-shop', CI_PIPELINE_ID: '7000' }

/** A job of the pipeline: its files in a folder of its own. */
function jobIn(name: string, jobId: string, extra: Record<string, string> = {}) {
  const dir = join(pipeline.work(), name)
  mkdirSync(dir)
  const env = pipeline.env({
    ...GITLAB,
    CI_JOB_ID: jobId,
    SVC_VARIABLES_FILE: join(dir, 'tunnel.env'),
    SVC_SHARED_CREDENTIAL_FILE: join(dir, 'shared.env'),
    ...extra
  })
  return { dir, cli: (args: string[]) => pipeline.cli(args, env) }
}

it('a setup job, two jobs exposing their own names, and a final job: one provision, one revoke', async () => {
  const setup = jobIn('setup', '1', { SVC_SHARE: 'create', SVC_TTL_MINUTES: '30' })
  const created = await setup.cli(['provision'])
  expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: '' })
  const dotenv = readFileSync(join(setup.dir, 'shared.env'), 'utf8')
  const sealed = /^SVC_SHARED_CREDENTIAL=(\S+)\n$/.exec(dotenv)![1]
  const { SVC_TUNNEL_TOKEN: token, SVC_TUNNEL_USER: user } = loadEnvFile(
    join(setup.dir, 'tunnel.env')
  )
  expect(readFileSync(join(setup.dir, 'tunnel.env'), 'utf8')).not.toContain(sealed)
  expect((await setup.cli(['revoke'])).code).toBe(0)
  expect(statusOf(service(), user)).toBe('active')

  const port = pipeline.app().port
  const template = `http://{name}-{user}.localhost:${service().tunnel!.frontPort}`
  const users = [0, 1].map(index =>
    jobIn(`test-${index}`, String(10 + index), {
      SVC_SHARE: 'use',
      SVC_SHARED_CREDENTIAL: sealed,
      SVC_EXPOSE: `web-${index}=${port}`,
      SVC_URL_TEMPLATE: template
    })
  )
  const used = []
  for (const job of users) {
    const ran = await job.cli(['provision'])
    expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' })
    used.push(ran)
  }
  const urls = users.map(job => loadEnvFile(join(job.dir, 'tunnel.env')).SVC_TUNNEL_URL)
  expect(new Set(urls).size).toBe(2)
  for (const [index, url] of urls.entries()) {
    expect(url).toContain(`web-${index}-`)
    expect(await fetchUrl(service(), url)).toEqual({ status: 200, text: APP_ANSWER })
  }
  for (const job of users) {
    expect(loadEnvFile(join(job.dir, 'tunnel.env'))).toMatchObject({
      SVC_TUNNEL_USER: user,
      SVC_TUNNEL_TOKEN: token
    })
  }

  // Each job's cleanup stops its own tunnel and leaves the credential to the run.
  const pids = used.map(tunnelPid)
  for (const [index, job] of users.entries()) {
    const revoked = await job.cli(['revoke'])
    expect(revoked.code).toBe(0)
    expect(stillRunning(pids[index])).toBe(false)
    expect(readdirSync(job.dir).filter(file => file !== 'requests.har')).toEqual([])
  }
  expect(statusOf(service(), user)).toBe('active')

  const final = jobIn('final', '20', { SVC_SHARE: 'revoke', SVC_SHARED_CREDENTIAL: sealed })
  const finished = await final.cli(['revoke'])
  expect({ code: finished.code, stderr: finished.stderr }).toEqual({ code: 0, stderr: '' })
  expect(statusOf(service(), user)).toBe('revoked')
  expect(existsSync(join(final.dir, '.tunnel-credentials.json'))).toBe(false)

  const paths = requestPaths(service())
  expect(paths.filter(path => path.startsWith('credential-provision'))).toHaveLength(1)
  expect(paths.filter(path => path.includes('revoke'))).toHaveLength(1)
  for (const ran of [created, ...used, finished]) {
    expectNoSecretPrinted(ran, [service().seed.provisionKey, token])
  }
}, 120_000)
