/**
 * The npm package as a GitLab or Jenkins job gets it: packed, installed offline into an empty
 * folder, and run on Node 20 and Node 24 against the local credential service. What a user sees:
 * exit codes, the env file and its mode, URLs that answer, tokens revoked, no process left, and
 * no secret in anything the CLI prints.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureNode24 } from '../../scripts/runner.js'
import { lookUpProcess } from '../../src/core/tunnel/identity.js'
import { installPackedCli, runCli, type CliRun } from '../helpers/packed-cli.js'
import { getThroughFront, startLocalApp } from '../../scripts/openssh.js'
import { statusOf, useService } from '../e2e/helpers.js'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
let installed: { dir: string; bin: string }
let app: Awaited<ReturnType<typeof startLocalApp>>
let work: string

beforeAll(async () => {
  installed = installPackedCli()
  app = await startLocalApp('answer from your local app')
}, 120_000)
afterAll(async () => {
  await app?.close()
  rmSync(installed.dir, { recursive: true, force: true })
})
beforeEach(() => (work = mkdtempSync(join(tmpdir(), 'cli-job-'))))
afterEach(() => rmSync(work, { recursive: true, force: true }))

/** A job's variables: only what a CI system would give, no GITHUB_* and no runner. */
function jobEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: work,
    SVC_API_KEY: service().seed.provisionKey,
    SVC_BASE_URL: service().baseUrl,
    SVC_PROJECT: service().seed.project,
    SVC_TIMEOUT_SECONDS: '5',
    ...extra
  }
}

const exposeFlags = () => [
  '--expose',
  `app=${app.port}`,
  '--url-template',
  `http://{name}-{user}.localhost:${service().tunnel!.frontPort}`
]

/** Reads the env file the way `set -a; . ./tunnel.env` does in a job: with sh itself. */
function loadEnvFile(path: string): Record<string, string> {
  const out = execFileSync('sh', ['-c', 'set -a; . "$1"; set +a; env -0', 'sh', path], {
    env: {},
    encoding: 'utf8'
  })
  return Object.fromEntries(
    out
      .split('\0')
      .filter(line => line.startsWith('SVC_'))
      .map(line => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)])
  )
}

function expectNoSecretPrinted(run: CliRun, secrets: string[]): void {
  for (const secret of secrets.filter(Boolean)) {
    expect(run.stdout).not.toContain(secret)
    expect(run.stderr).not.toContain(secret)
  }
}

/** As a browser would reach the URL: the front routes by host name (*.localhost is loopback). */
async function fetchText(url: string): Promise<{ status: number; text: string }> {
  const { status, body } = await getThroughFront(service().tunnel!.frontPort, new URL(url).hostname)
  return { status, text: body }
}

function stillRunning(pid: number): boolean {
  return lookUpProcess(pid).state === 'running'
}

describe.each([
  ['Node 20', () => process.execPath],
  ['Node 24', () => ensureNode24()]
])('the packed package on %s', (_name, node) => {
  const cli = (args: string[], env = jobEnv()) =>
    runCli(node(), installed.bin, args, { env, cwd: work })

  it('provision writes tunnel.env (0600, loadable by sh), revoke revokes and deletes it', async () => {
    const provisioned = await cli(['provision'])
    expect(provisioned.stderr).toBe('')
    expect(provisioned.code).toBe(0)
    const envFile = join(work, 'tunnel.env')
    expect(statSync(envFile).mode & 0o777).toBe(0o600)
    const vars = loadEnvFile(envFile)
    expect(Object.keys(vars).sort()).toEqual([
      'SVC_TUNNEL_HOST',
      'SVC_TUNNEL_PORT',
      'SVC_TUNNEL_TOKEN',
      'SVC_TUNNEL_USER'
    ])
    expect(vars.SVC_TUNNEL_PORT).toBe(String(service().tunnelPort))
    expect(statusOf(service(), vars.SVC_TUNNEL_USER)).toBe('active')
    expect(provisioned.stdout).toContain(`Wrote 4 variables to ${envFile}`)
    const state = readFileSync(join(work, '.tunnel-credentials.json'), 'utf8')
    expect(state).not.toContain(vars.SVC_TUNNEL_TOKEN)

    const revoked = await cli(['revoke'])
    expect(revoked.code).toBe(0)
    expect(revoked.stdout).toContain(`Revoked the tunnel token of user ${vars.SVC_TUNNEL_USER}.`)
    expect(statusOf(service(), vars.SVC_TUNNEL_USER)).toBe('revoked')
    expect(existsSync(envFile)).toBe(false)
    expect(existsSync(join(work, '.tunnel-credentials.json'))).toBe(false)
    // Twice is safe: nothing left, nothing to do, exit 0.
    const again = await cli(['revoke'])
    expect(again.code).toBe(0)
    expect(again.stdout).toMatch(/Nothing to revoke/)
    for (const run of [provisioned, revoked, again]) {
      expectNoSecretPrinted(run, [service().seed.provisionKey, vars.SVC_TUNNEL_TOKEN])
    }
  })

  it('provision --expose prints a URL that reaches the app; revoke ends the tunnel', async () => {
    const provisioned = await cli(['provision', ...exposeFlags()])
    expect(provisioned.code).toBe(0)
    const vars = loadEnvFile(join(work, 'tunnel.env'))
    const url = vars.SVC_TUNNEL_URL
    expect(provisioned.stdout).toContain(`Exposed app: ${url}`)
    expect(await fetchText(url)).toEqual({
      status: 200,
      text: 'answer from your local app (GET /)\n'
    })
    const pid = Number(/\(process (\d+),/.exec(provisioned.stdout)![1])
    expect(stillRunning(pid)).toBe(true)

    const revoked = await cli(['revoke'])
    expect(revoked.code).toBe(0)
    expect(stillRunning(pid)).toBe(false)
    expect((await fetchText(url)).status).toBe(502)
    expect(statusOf(service(), vars.SVC_TUNNEL_USER)).toBe('revoked')
    for (const run of [provisioned, revoked]) {
      expectNoSecretPrinted(run, [service().seed.provisionKey, vars.SVC_TUNNEL_TOKEN])
    }
  })

  it('run gives the command the variables but not the API key, exits with its code, revokes', async () => {
    const script =
      'printf "%s|%s|%s\\n" "$SVC_TUNNEL_USER" "${SVC_API_KEY:-no key}" "$SVC_TUNNEL_URL"; ' +
      'curl -s "$SVC_TUNNEL_URL/"; echo; exit 7'
    const ran = await cli(['run', ...exposeFlags(), '--', 'sh', '-c', script])
    expect(ran.code).toBe(7)
    const [user, key, url] = ran.stdout
      .split('\n')
      .find(line => line.includes('|'))!
      .split('|')
    expect(key).toBe('no key')
    expect(url).toMatch(/^http:\/\/app-/)
    expect(ran.stdout).toContain('answer from your local app')
    expect(statusOf(service(), user)).toBe('revoked')
    expect(existsSync(join(work, 'tunnel.env'))).toBe(false)
    expect(existsSync(join(work, '.tunnel-credentials.json'))).toBe(false)
    expect((await fetchText(url)).status).toBe(502)
    expectNoSecretPrinted(ran, [service().seed.provisionKey])
  })
})
