/**
 * GitLab pipelines run for real with gitlab-ci-local (shell executor): the component included by
 * its local path and by its component path, and the GitLab pipeline of docs/other-ci.md. Each job
 * installs the packed package with npx (offline), provisions from the local service, reaches a
 * local app through the exposed URL from its script, and revokes in after_script, whether the
 * script passes or fails. Afterwards the token is revoked in the service, no tunnel process is
 * left, no file of the credential stays in the project, and no secret is in gitlab-ci-local's
 * output or the logs it wrote.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse, stringify } from 'yaml'
import { getThroughFront, startLocalApp } from '../../scripts/openssh.js'
import { statusOf, useService } from '../e2e/helpers.js'
import { packedTarball } from '../helpers/packed-cli.js'
import {
  ensureGitlabCiLocal,
  gitProject,
  leaksIn,
  isRunning,
  processesWith,
  runPipeline,
  type PipelineRun
} from './pipeline.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const component = readFileSync(join(root, 'templates', 'tunnel-credentials.yml'), 'utf8')
const doc = readFileSync(join(root, 'docs', 'other-ci.md'), 'utf8')

/** The body of the one ```yaml block whose info string has `cli=NAME`. */
function cliPipeline(name: string): string {
  const blocks = [...doc.matchAll(/^```yaml ([^\n]*)\n([\s\S]*?)^```$/gm)].filter(([, info]) =>
    info.split(/\s+/).includes(`cli=${name}`)
  )
  if (blocks.length !== 1)
    throw new Error(`docs/other-ci.md has no one \`\`\`yaml cli=${name} block`)
  return blocks[0][2]
}

/**
 * The project's tests, stood in for: they reach the app through its public URL, hand the test
 * the credential they were given (through a folder outside the project, never the log), and end
 * with the exit code the test asks for.
 */
const runIntegrationTests = `#!/bin/sh
set -e
printf '%s\\n%s\\n%s\\n' "$SVC_TUNNEL_USER" "$SVC_TUNNEL_TOKEN" "$SVC_TUNNEL_URL" > "$TEST_SINK/credential"
curl -fsS --max-time 10 "$SVC_TUNNEL_URL" > "$TEST_SINK/through-tunnel.txt"
exit "$TEST_EXIT"
`
// The app is the test's own, already listening; a real project starts its own here.
const startApp = '#!/bin/sh\necho "the app listens"\n'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
let app: Awaited<ReturnType<typeof startLocalApp>>
let tarball: string
let npmCache: string
const temps: string[] = []
const scratch = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  temps.push(dir)
  return dir
}

beforeAll(async () => {
  ensureGitlabCiLocal()
  tarball = packedTarball()
  npmCache = scratch('gitlab-npm-cache-')
  app = await startLocalApp("answer from the job's app")
}, 180_000)
afterAll(async () => {
  await app?.close()
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

const urlTemplate = () => `http://{name}-{user}.localhost:${service().tunnel!.frontPort}`

type Outcome = 'passes' | 'fails'

function lifetimeMinutes(user: string): number {
  const issued = service()
    .tokens()
    .find(t => t.tunnel_user === user)
  return (Date.parse(issued?.expires_at ?? '') - Date.parse(issued?.created_at ?? '')) / 60_000
}

/** Runs the pipeline in a fresh project and checks everything a job must leave behind. */
async function runAndCheck(
  pipeline: string,
  outcome: Outcome,
  variables: Record<string, string> = {}
): Promise<PipelineRun & { user: string }> {
  const sink = scratch('gitlab-sink-')
  const dir = gitProject({
    '.gitlab-ci.yml': pipeline,
    'templates/tunnel-credentials.yml': component,
    'run-integration-tests.sh': runIntegrationTests,
    'start-app.sh': startApp
  })
  temps.push(dir)
  const apiKey = service().seed.provisionKey
  const run = await runPipeline(dir, {
    npmCache,
    projectVariables: {
      SVC_API_KEY: apiKey,
      TEST_EXIT: outcome === 'passes' ? '0' : '3',
      ...variables
    },
    env: { TEST_SINK: sink }
  })
  // The script never ran: show what gitlab-ci-local said instead of a missing file.
  if (!existsSync(join(sink, 'credential')))
    throw new Error(`the job's script did not run:\n${run.output}`)
  const [user, token, url] = readFileSync(join(sink, 'credential'), 'utf8').split('\n')
  expect({ user, token, url }).toEqual({
    user: expect.stringMatching(/^\S+$/),
    token: expect.stringMatching(/^tok_/),
    url: expect.stringMatching(/^http:\/\/[a-z]+-\S+\.localhost:\d+$/)
  })
  expect(readFileSync(join(sink, 'through-tunnel.txt'), 'utf8')).toContain(
    "answer from the job's app"
  )

  expect(run.output).toContain('Running after script')
  if (outcome === 'passes') {
    expect(run.output).toMatch(/PASS\s+integration-tests/)
    expect(run.code).toBe(0)
  } else {
    expect(run.output).toMatch(/FAIL\s+integration-tests/)
    expect(run.code).not.toBe(0)
  }
  expect(run.output).not.toMatch(/WARN\s+integration-tests\s+after_script/)

  expect(statusOf(service(), user)).toBe('revoked')
  expect((await getThroughFront(service().tunnel!.frontPort, new URL(url).hostname)).status).toBe(
    502
  )
  // The tunnel process provision started (it names its pid), and any other run from the npx
  // cache, is gone once after_script is done.
  const tunnels = [...run.output.matchAll(/\(process (\d+), log /g)]
  expect(tunnels).toHaveLength(1)
  expect(processesWith(npmCache)).toEqual([])
  expect(isRunning(Number(tunnels[0][1]))).toBe(false)
  expect(readdirSync(dir).filter(name => /tunnel/.test(name) && !name.endsWith('.sh'))).toEqual([])
  expect(leaksIn(run, [apiKey, token])).toEqual([])
  return { ...run, user }
}

describe('the component (templates/tunnel-credentials.yml)', () => {
  // Each include form once, one with a script that passes and one with a script that fails: a
  // pipeline takes several seconds, and the whole suite runs in CI.
  const cases: [string, Outcome, Record<string, string>][] = [
    ['by its local path', 'passes', { local: 'templates/tunnel-credentials.yml' }],
    [
      'by its component path',
      'fails',
      { component: '$CI_SERVER_FQDN/$CI_PROJECT_PATH/tunnel-credentials@$CI_COMMIT_SHA' }
    ]
  ]

  it.each(cases)(
    'included %s, whose script %s: provisions, reaches the exposed app, revokes in after_script',
    async (_how, outcome, include) => {
      const pipeline = stringify({
        include: [
          {
            ...include,
            inputs: {
              project: service().seed.project,
              'base-url': service().baseUrl,
              'ttl-minutes': '20',
              expose: `web=127.0.0.1:${app.port}`,
              'url-template': urlTemplate(),
              package: tarball,
              script: ['./run-integration-tests.sh']
            }
          }
        ]
      })
      const run = await runAndCheck(pipeline, outcome)
      expect(run.output).toContain('tunnel-credentials provision')
      // The inputs reached the CLI: the credential lives as long as ttl-minutes says.
      const issued = service()
        .tokens()
        .find(t => t.tunnel_user === run.user)
      const lifetime = Date.parse(issued?.expires_at ?? '') - Date.parse(issued?.created_at ?? '')
      expect(lifetime).toBe(20 * 60_000)
    },
    90_000
  )
})

describe('the GitLab pipeline of docs/other-ci.md', () => {
  // The failing script: everything a passing one shows, and after_script on a failed job too.
  it.each(['fails'] as Outcome[])(
    'whose script %s: provisions, reaches the exposed app, revokes in after_script',
    async outcome => {
      const pipeline = cliPipeline('gitlab')
      expect(pipeline).toContain('npx --yes provision-tunnel-credentials@1 ')
      // The project's CI/CD variables take precedence over the pipeline's, as in GitLab.
      // npx takes a bare path for a command to run, so the tarball is given as a file: spec.
      const packed = pipeline.replaceAll('provision-tunnel-credentials@1', `file:${tarball}`)
      const { user } = await runAndCheck(packed, outcome, {
        SVC_BASE_URL: service().baseUrl,
        SVC_PROJECT: service().seed.project,
        SVC_EXPOSE: String(app.port),
        SVC_URL_TEMPLATE: urlTemplate()
      })
      expect(lifetimeMinutes(user)).toBe(Number(parse(pipeline).variables.SVC_TTL_MINUTES))
    },
    90_000
  )
})
