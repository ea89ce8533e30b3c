/**
 * Issue 28: one credential for a whole GitLab pipeline, run for real with gitlab-ci-local (shell
 * executor, one job at a time in the project's folder). The component is included three times: a
 * setup job (`share: create`) whose dotenv report hands the sealed credential on, a `parallel: 3`
 * job (`share: use`) whose instances each expose `web-{index}` and reach their own app through
 * their own URL, and a final job (`share: revoke`). The service sees one provision and one revoke;
 * the credential is revoked at the end; no secret is in any log, artifact or dotenv file.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stringify } from 'yaml'
import { requestPaths, statusOf, useService } from '../e2e/helpers.js'
import { usePackedTarball } from '../helpers/packed-cli.js'
import {
  ensureGitlabCiLocal,
  gitProject,
  isRunning,
  leaksIn,
  packageInputs,
  runPipeline
} from './pipeline.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const component = readFileSync(join(root, 'templates', 'tunnel-credentials.yml'), 'utf8')
const JOBS = 3

const service = useService({ tunnel: { checkIntervalMs: 100 } })
const packed = usePackedTarball()
const temps: string[] = []
const scratch = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  temps.push(dir)
  return dir
}
/** One app per parallel job, all on one port: job N's on 127.0.0.N, as `{index}` names it. */
let apps: { port: number; servers: Server[] }

beforeAll(async () => {
  ensureGitlabCiLocal()
  apps = await startApps(JOBS)
}, 180_000)
afterAll(async () => {
  for (const server of apps?.servers ?? []) {
    server.closeAllConnections()
    await new Promise(resolve => server.close(resolve))
  }
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

/** `count` servers on 127.0.0.1 … 127.0.0.count, one port, each answering with its number. */
async function startApps(count: number): Promise<{ port: number; servers: Server[] }> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const servers: Server[] = []
    try {
      let port = 0
      for (let n = 1; n <= count; n++) {
        const server = createServer((_request, response) => {
          response.writeHead(200, { 'content-type': 'text/plain' }).end(`the app of job ${n}\n`)
        })
        servers.push(server)
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject)
          server.listen(port, `127.0.0.${n}`, resolve)
        })
        port = (server.address() as AddressInfo).port
      }
      return { port, servers }
    } catch {
      // The port the first took is in use on another address: try another.
      servers.forEach(server => server.close())
    }
  }
  throw new Error('no port free on 127.0.0.1 to 127.0.0.3')
}

/**
 * Each parallel job hands the test what it was given (through a folder outside the project,
 * never the log) and what its own URL answered.
 */
const parallelScript = [
  'printf \'%s\\n%s\\n%s\\n\' "$SVC_TUNNEL_USER" "$SVC_TUNNEL_TOKEN" "$SVC_TUNNEL_URL" > "$TEST_SINK/job-$CI_NODE_INDEX"',
  'curl -fsS --max-time 10 "$SVC_TUNNEL_URL" > "$TEST_SINK/answer-$CI_NODE_INDEX"'
]

/**
 * The pipeline; `setupScript` is the setup job's own commands, after it shared the credential,
 * and `finalNeeds` the jobs the final job waits for.
 */
function sharedPipeline(setupScript: string[], finalNeeds: string[]): string {
  const common = {
    ...packageInputs(packed()),
    project: service().seed.project,
    'base-url': service().baseUrl,
    'ttl-minutes': '20'
  }
  const urlTemplate = `http://{name}-{user}.localhost:${service().tunnel!.frontPort}`
  return stringify({
    stages: ['setup', 'test', 'cleanup'],
    include: [
      {
        local: 'templates/tunnel-credentials.yml',
        inputs: {
          ...common,
          'job-name': 'tunnel-setup',
          stage: 'setup',
          share: 'create',
          script: setupScript
        }
      },
      {
        local: 'templates/tunnel-credentials.yml',
        inputs: {
          ...common,
          'job-name': 'e2e',
          share: 'use',
          expose: `web-{index}=127.0.0.{index}:${apps.port}`,
          'url-template': urlTemplate,
          script: parallelScript
        }
      },
      {
        local: 'templates/tunnel-credentials.yml',
        inputs: { ...common, 'job-name': 'tunnel-revoke', stage: 'cleanup', share: 'revoke' }
      }
    ],
    e2e: { parallel: JOBS, needs: ['tunnel-setup'] },
    'tunnel-revoke': { needs: finalNeeds }
  })
}

/** Runs the pipeline in a fresh project; the folder the jobs hand the test what they saw. */
async function runShared(setupScript: string[] = [], finalNeeds = ['tunnel-setup', 'e2e']) {
  const sink = scratch('gitlab-sink-')
  const dir = gitProject({
    '.gitlab-ci.yml': sharedPipeline(setupScript, finalNeeds),
    'templates/tunnel-credentials.yml': component
  })
  temps.push(dir)
  const run = await runPipeline(dir, {
    npmCache: scratch('gitlab-npm-cache-'),
    projectVariables: { SVC_API_KEY: service().seed.provisionKey },
    // GitLab sets it; gitlab-ci-local sets it to false (and warns when it is given), and the CLI
    // shares only on GitLab CI.
    pipelineVariables: { GITLAB_CI: 'true' },
    env: { TEST_SINK: sink, GCL_IGNORE_PREDEFINED_VARS: 'GITLAB_CI' },
    concurrency: 1,
    timeoutMs: 150_000
  })
  return { run, sink, dir }
}

describe('one credential for a GitLab pipeline: a setup job, parallel jobs, a final job', () => {
  it('provisions once, each parallel job exposes its own name and reaches its own app, and the final job revokes once', async () => {
    const { run, sink, dir } = await runShared()
    const apiKey = service().seed.provisionKey
    const jobs = [...Array(JOBS).keys()].map(i => i + 1)
    if (!jobs.every(n => existsSync(join(sink, `job-${n}`))))
      throw new Error(`a parallel job's script did not run:\n${run.output}`)
    expect(run.code).toBe(0)
    for (const name of [
      'tunnel-setup',
      ...jobs.map(n => `e2e: \\[${n}/${JOBS}\\]`),
      'tunnel-revoke'
    ])
      expect(run.output).toMatch(new RegExp(`PASS\\s+${name}`))

    // One credential: every job got the same, and the service made and revoked it once.
    const given = jobs.map(n => readFileSync(join(sink, `job-${n}`), 'utf8').split('\n'))
    const [user, token] = given[0]
    expect(token).toMatch(/^tok_/)
    expect(given.map(([u, t]) => [u, t])).toEqual(jobs.map(() => [user, token]))
    const paths = requestPaths(service())
    expect(paths.filter(path => path === 'credential-provision')).toHaveLength(1)
    expect(paths.filter(path => path === 'revoke-token')).toHaveLength(1)
    expect(statusOf(service(), user)).toBe('revoked')

    // Three tunnels with distinct names, each reaching its own job's app.
    const urls = given.map(([, , url]) => new URL(url).hostname)
    expect(urls).toEqual(jobs.map(n => `web-${n}-${user}.localhost`))
    expect(jobs.map(n => readFileSync(join(sink, `answer-${n}`), 'utf8'))).toEqual(
      jobs.map(n => `the app of job ${n}\n`)
    )
    // Each job's after_script stopped its own tunnel process.
    const tunnels = [...run.output.matchAll(/\(process (\d+), log /g)].map(([, pid]) => pid)
    expect(new Set(tunnels).size).toBe(JOBS)
    expect(tunnels.filter(pid => isRunning(Number(pid)))).toEqual([])

    // The dotenv report holds the sealed credential alone; nothing anywhere holds a secret.
    const report = join(dir, '.gitlab-ci-local', 'artifacts', 'tunnel-setup', '.gitlab-ci-reports')
    expect(readdirSync(join(report, 'dotenv'))).toEqual(['shared.env'])
    const dotenv = readFileSync(join(report, 'dotenv', 'shared.env'), 'utf8')
    expect(dotenv).toMatch(/^SVC_SHARED_CREDENTIAL=ptc1\.[A-Za-z0-9_.-]+\n?$/)
    // GitLab refuses a dotenv report over 5 KB (its default limit).
    expect(Buffer.byteLength(dotenv)).toBeLessThan(5 * 1024)
    expect(leaksIn(run, [apiKey, token])).toEqual([])
  }, 180_000)

  it('when the setup job fails after it shared the credential, its after_script leaves it, and the final job still revokes it', async () => {
    // The final job needs the setup job alone here: gitlab-ci-local skips a when: always job
    // whose needs name a job it skipped (the parallel jobs, whose setup job failed).
    const { run, sink } = await runShared(
      [
        'printf \'%s\\n%s\\n\' "$SVC_TUNNEL_USER" "$SVC_TUNNEL_TOKEN" > "$TEST_SINK/setup"',
        'exit 3'
      ],
      ['tunnel-setup']
    )
    const [user, token] = readFileSync(join(sink, 'setup'), 'utf8').split('\n')
    expect(run.output).toMatch(/FAIL\s+tunnel-setup/)
    expect(run.output).toMatch(/PASS\s+tunnel-revoke/)
    // The jobs that need the setup job never ran.
    expect(readdirSync(sink)).toEqual(['setup'])
    const paths = requestPaths(service())
    expect(paths.filter(path => path === 'credential-provision')).toHaveLength(1)
    expect(paths.filter(path => path === 'revoke-token')).toHaveLength(1)
    expect(statusOf(service(), user)).toBe('revoked')
    expect(leaksIn(run, [service().seed.provisionKey, token])).toEqual([])
  }, 180_000)
})
