/**
 * GitLab pipelines run for real with gitlab-ci-local (shell executor): the component included by
 * its local path and by its component path, and the GitLab pipeline of docs/other-ci.md. Each job
 * installs the packed package from a file:// URL, checked against its SHA-256, provisions from
 * the local service, reaches a local app through the exposed URL from its script, and revokes in
 * after_script, whether the script passes or fails. Afterwards the token is revoked in the
 * service, no tunnel process is left, no file of the credential stays in the project, the
 * package's folder is gone, and no secret is in gitlab-ci-local's output or the logs it wrote.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stringify } from 'yaml'
import { getThroughFront, startLocalApp } from '../../scripts/openssh.js'
import { statusOf, useService } from '../e2e/helpers.js'
import { usePackedTarball } from '../helpers/packed-cli.js'
import {
  ensureGitlabCiLocal,
  gitProject,
  leaksIn,
  isRunning,
  packageInputs,
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
const packed = usePackedTarball()
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
  tarball = packed()
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

interface RunOptions {
  /** The project's CI/CD variables, besides SVC_API_KEY and TEST_EXIT. */
  variables?: Record<string, string>
  /** Variables given when the pipeline starts, which win over the job's own. */
  pipelineVariables?: Record<string, string>
  /** More files of the project, besides the pipeline, the component and the two scripts. */
  files?: Record<string, string>
}

/** Runs the pipeline in a fresh project and checks everything a job must leave behind. */
async function runAndCheck(
  pipeline: string,
  outcome: Outcome,
  options: RunOptions = {}
): Promise<PipelineRun & { user: string; sink: string; dir: string }> {
  const sink = scratch('gitlab-sink-')
  const dir = gitProject({
    '.gitlab-ci.yml': pipeline,
    'templates/tunnel-credentials.yml': component,
    'run-integration-tests.sh': runIntegrationTests,
    'start-app.sh': startApp,
    ...options.files
  })
  temps.push(dir)
  const apiKey = service().seed.provisionKey
  const installsBefore = installFolders()
  const run = await runPipeline(dir, {
    npmCache,
    projectVariables: {
      SVC_API_KEY: apiKey,
      TEST_EXIT: outcome === 'passes' ? '0' : '3',
      ...options.variables
    },
    ...(options.pipelineVariables && { pipelineVariables: options.pipelineVariables }),
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
  // The package's folder outside the checkout is gone with the job.
  expect(installFolders().filter(name => !installsBefore.includes(name))).toEqual([])
  return { ...run, user, sink, dir }
}

/** The folders the component installs its package in, outside the checkout. */
function installFolders(): string[] {
  return readdirSync('/tmp').filter(name => name.startsWith('tunnel-credentials-'))
}

/** The component's inputs for this machine's service, app and packed package. */
const componentInputs = (extra: Record<string, unknown> = {}) => ({
  ...packageInputs(tarball),
  project: service().seed.project,
  'base-url': service().baseUrl,
  'ttl-minutes': '20',
  expose: `web=127.0.0.1:${app.port}`,
  'url-template': urlTemplate(),
  script: ['./run-integration-tests.sh'],
  ...extra
})

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
      const pipeline = stringify({ include: [{ ...include, inputs: componentInputs() }] })
      const run = await runAndCheck(pipeline, outcome)
      expect(run.output).toContain('dist/cli/index.cjs" provision')
      // The inputs reached the CLI: the credential lives as long as ttl-minutes says.
      expect(lifetimeMinutes(run.user)).toBe(20)
    },
    90_000
  )

  it("keeps the key from the user's script, from pipeline variables and from the checkout's code, and provisions despite the job's own before_script", async () => {
    // Whoever starts the pipeline may give variables, which win over the job's own: here they
    // point the service's URL, and the settings the component used to read from variables,
    // at a server that records what it is sent.
    const decoyRequests: { url?: string; apiKey?: string | string[] }[] = []
    const decoy = createServer((request, response) => {
      decoyRequests.push({ url: request.url, apiKey: request.headers['x-api-key'] })
      response.writeHead(500).end()
    })
    await new Promise<void>(resolve => decoy.listen(0, '127.0.0.1', resolve))
    const decoyUrl = `http://127.0.0.1:${(decoy.address() as AddressInfo).port}/functions/v1`
    // The package's file, which the script deletes: revoke then runs what provision installed.
    const ownTarball = join(scratch('gitlab-package-'), 'package.tgz')
    copyFileSync(tarball, ownTarball)
    // A copy of the tool in the checkout, as `npx provision-tunnel-credentials@1` would run it.
    const planted = `#!/usr/bin/env node
require('fs').writeFileSync(process.env.TEST_SINK + '/planted-ran', String(process.env.SVC_API_KEY))
`
    const pipeline = stringify({
      include: [
        {
          local: 'templates/tunnel-credentials.yml',
          inputs: componentInputs({
            ...packageInputs(ownTarball),
            'package-url': `file://${ownTarball}`,
            script: [
              // Everything the script's shell holds, to a file outside the log.
              'env > "$TEST_SINK/script-env"',
              `rm "${ownTarball}"`,
              './run-integration-tests.sh'
            ]
          })
        }
      ],
      // A job of the component's name that sets its own before_script, which replaces any other.
      'integration-tests': { before_script: ['./start-app.sh > "$TEST_SINK/before-script-ran"'] }
    })
    try {
      const run = await runAndCheck(pipeline, 'passes', {
        variables: { SVC_INPUT_TUNNEL_TOKEN: 'tok_existing_token_of_the_project' },
        pipelineVariables: {
          SVC_BASE_URL: decoyUrl,
          SVC_PROJECT: 'another-project',
          SVC_EXPOSE: '1',
          SVC_TTL_MINUTES: '600',
          SVC_REVOKE: 'false',
          TUNNEL_CREDENTIALS_PACKAGE: 'provision-tunnel-credentials@1'
        },
        files: {
          'node_modules/provision-tunnel-credentials/package.json': JSON.stringify({
            name: 'provision-tunnel-credentials',
            version: '1.99.0',
            bin: { 'tunnel-credentials': 'cli.js' }
          }),
          'node_modules/provision-tunnel-credentials/cli.js': planted,
          'node_modules/.bin/tunnel-credentials': planted
        }
      })
      expect(decoyRequests).toEqual([])
      expect(existsSync(join(run.sink, 'planted-ran'))).toBe(false)
      expect(existsSync(join(run.sink, 'before-script-ran'))).toBe(true)
      const names = readFileSync(join(run.sink, 'script-env'), 'utf8')
        .split('\n')
        .map(line => line.slice(0, line.indexOf('=')))
      expect(names).toEqual(expect.arrayContaining(['SVC_TUNNEL_TOKEN', 'SVC_TUNNEL_URL']))
      expect(names.filter(name => /^SVC_(API_KEY|INPUT_TUNNEL_TOKEN)$/.test(name))).toEqual([])
      // The component's settings, not the pipeline's variables: its project, its TTL.
      expect(lifetimeMinutes(run.user)).toBe(20)
    } finally {
      decoy.close()
    }
  }, 90_000)

  // Issue 26, item 10: the script gets the gate's secret as a variable (the component has no
  // outputs), and the gate's line in the job's log names that variable, not outputs.
  it('with protect, gives the script SVC_TUNNEL_GATE_SECRET, which curl -u sends through the gate', async () => {
    const gated = `#!/bin/sh
set -e
printf '%s\\n%s\\n%s\\n' "$SVC_TUNNEL_USER" "$SVC_TUNNEL_TOKEN" "$SVC_TUNNEL_URL" > "$TEST_SINK/credential"
printf '%s' "$SVC_TUNNEL_GATE_SECRET" > "$TEST_SINK/gate-secret"
curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$SVC_TUNNEL_URL" > "$TEST_SINK/without-secret.txt"
curl -fsS --max-time 10 -u "tunnel:$SVC_TUNNEL_GATE_SECRET" "$SVC_TUNNEL_URL" > "$TEST_SINK/through-tunnel.txt"
exit "$TEST_EXIT"
`
    const pipeline = stringify({
      include: [
        { local: 'templates/tunnel-credentials.yml', inputs: componentInputs({ protect: 'true' }) }
      ]
    })
    const run = await runAndCheck(pipeline, 'passes', {
      files: { 'run-integration-tests.sh': gated }
    })
    const secret = readFileSync(join(run.sink, 'gate-secret'), 'utf8')
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(readFileSync(join(run.sink, 'without-secret.txt'), 'utf8')).toBe('401')
    expect(run.output).toMatch(
      /Gate: On: .*The secret is in SVC_TUNNEL_GATE_SECRET, e\.g\. curl -u /
    )
    expect(run.output).not.toMatch(/Gate: On: .*outputs/)
    expect(run.output).toMatch(
      /Exported SVC_TUNNEL_TOKEN, _USER, _HOST, _PORT, _URL and _GATE_SECRET\./
    )
    expect(leaksIn(run, [secret])).toEqual([])
  }, 90_000)

  it('runs no code that pipeline variables name in a process that holds the key: NODE_OPTIONS, NODE_PATH, PATH', async () => {
    const markers = scratch('gitlab-markers-')
    // Code that needs no file on the runner: whichever Node process starts with it leaves a mark.
    const marker = (what: string) =>
      `import{writeFileSync}from'node:fs';writeFileSync('${markers}/${what}-'+process.pid,String(process.env.SVC_API_KEY))`
    // A `node` (and `curl`) of the pipeline's choosing, first on a PATH it gives.
    const bin = scratch('gitlab-bin-')
    for (const name of ['node', 'curl']) {
      writeFileSync(
        join(bin, name),
        `#!/bin/sh\nprintf '%s' "$SVC_API_KEY" > "${markers}/path-${name}-$$"\nexec /usr/bin/${name} "$@"\n`,
        { mode: 0o755 }
      )
    }
    const pipeline = stringify({
      include: [{ local: 'templates/tunnel-credentials.yml', inputs: componentInputs() }]
    })
    await runAndCheck(pipeline, 'passes', {
      pipelineVariables: {
        NODE_OPTIONS: `--import=data:text/javascript,${marker('node-options')}`,
        NODE_PATH: bin,
        PATH: `${bin}:${process.env.PATH}`
      }
    })
    // The user's script runs with the job's PATH (its curl is the planted one), never with the key.
    const marks = readdirSync(markers)
    expect(marks.filter(name => !name.startsWith('path-curl-'))).toEqual([])
    const key = service().seed.provisionKey
    expect(marks.filter(name => readFileSync(join(markers, name), 'utf8').includes(key))).toEqual(
      []
    )
  }, 90_000)

  it("never runs nor removes a folder another job made under this job's id", async () => {
    // On a shell runner job ids are sequential: an earlier job makes the folder the next job's
    // id would name, with a CLI of its own in it.
    const jobId = String(700_000 + Math.floor(Math.random() * 99_999))
    const foreign = `/tmp/tunnel-credentials-${jobId}`
    const markers = scratch('gitlab-markers-')
    mkdirSync(join(foreign, 'dist', 'cli'), { recursive: true, mode: 0o700 })
    temps.push(foreign)
    const trap = `require('fs').writeFileSync('${markers}/foreign-cli-ran', String(process.env.SVC_API_KEY))\n`
    writeFileSync(join(foreign, 'dist', 'cli', 'index.cjs'), trap)
    writeFileSync(join(foreign, 'package.tgz'), 'not the package\n')
    const pipeline = stringify({
      include: [{ local: 'templates/tunnel-credentials.yml', inputs: componentInputs() }]
    })
    await runAndCheck(pipeline, 'passes', { pipelineVariables: { CI_JOB_ID: jobId } })
    expect(readdirSync(markers)).toEqual([])
    expect(readFileSync(join(foreign, 'dist', 'cli', 'index.cjs'), 'utf8')).toBe(trap)
    expect(readdirSync(foreign).sort()).toEqual(['dist', 'package.tgz'])
  }, 90_000)

  it('refuses a package whose hash is not the pinned one, before anything runs with the key', async () => {
    const sink = scratch('gitlab-sink-')
    const installsBefore = installFolders()
    const dir = gitProject({
      '.gitlab-ci.yml': stringify({
        include: [
          {
            local: 'templates/tunnel-credentials.yml',
            inputs: componentInputs({ 'package-sha256': '0'.repeat(64) })
          }
        ]
      }),
      'templates/tunnel-credentials.yml': component,
      'run-integration-tests.sh': runIntegrationTests
    })
    temps.push(dir)
    const issuedBefore = service().tokens().length
    const run = await runPipeline(dir, {
      npmCache,
      projectVariables: { SVC_API_KEY: service().seed.provisionKey, TEST_EXIT: '0' },
      env: { TEST_SINK: sink }
    })
    expect(run.output).toMatch(/FAIL\s+integration-tests/)
    expect(existsSync(join(sink, 'credential'))).toBe(false)
    expect(service().tokens()).toHaveLength(issuedBefore)
    expect(service().requests().length).toBe(0)
    expect(installFolders().filter(name => !installsBefore.includes(name))).toEqual([])
  }, 90_000)
})

describe('the GitLab pipeline of docs/other-ci.md', () => {
  const pipeline = cliPipeline('gitlab')
  /** The example's values, for this machine's: the package, the service, the project, the app. */
  function localPipeline(): string {
    const archive =
      'https://github.com/provision-tunnel-credentials/provision-tunnel-credentials/archive/<commit>.tar.gz'
    expect(pipeline).toContain(archive)
    expect(pipeline).not.toMatch(/\bnpx\b/)
    const { 'package-url': url, 'package-sha256': sha256 } = packageInputs(tarball)
    return pipeline
      .replaceAll(archive, url)
      .replaceAll("--proto '=https'", "--proto '=file'")
      .replaceAll("'<sha256>'", `'${sha256}'`)
      .replaceAll('https://api.example.com/functions/v1', service().baseUrl)
      .replaceAll('--project my-app', `--project ${service().seed.project}`)
      .replaceAll('--expose 3000', `--expose ${app.port}`)
  }

  // The failing script: everything a passing one shows, and after_script on a failed job too.
  it.each(['fails'] as Outcome[])(
    'whose script %s: installs the pinned package, provisions, reaches the exposed app, revokes in after_script',
    async outcome => {
      const { user } = await runAndCheck(localPipeline(), outcome, {
        variables: { SVC_URL_TEMPLATE: urlTemplate() }
      })
      expect(lifetimeMinutes(user)).toBe(Number(/--ttl-minutes (\d+)/.exec(pipeline)?.[1]))
    },
    90_000
  )

  it("never runs nor removes a folder another job made under this job's id", async () => {
    const jobId = String(800_000 + Math.floor(Math.random() * 99_999))
    const foreign = `/tmp/tunnel-credentials-${jobId}`
    const markers = scratch('gitlab-markers-')
    mkdirSync(join(foreign, 'dist', 'cli'), { recursive: true, mode: 0o700 })
    temps.push(foreign)
    const trap = `require('fs').writeFileSync('${markers}/foreign-cli-ran', String(process.env.SVC_API_KEY))\n`
    writeFileSync(join(foreign, 'dist', 'cli', 'index.cjs'), trap)
    await runAndCheck(localPipeline(), 'passes', {
      variables: { SVC_URL_TEMPLATE: urlTemplate() },
      pipelineVariables: { CI_JOB_ID: jobId }
    })
    expect(readdirSync(markers)).toEqual([])
    expect(readFileSync(join(foreign, 'dist', 'cli', 'index.cjs'), 'utf8')).toBe(trap)
  }, 90_000)
})
