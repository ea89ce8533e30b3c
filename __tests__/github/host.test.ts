/**
 * The GitHub host's one hand-over: what lands in GITHUB_ENV, GITHUB_OUTPUT and
 * GITHUB_STEP_SUMMARY, and what happens when the summary or a runner file cannot be written.
 */
// nock must patch http before @actions/http-client loads.
import nock from 'nock'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startLocalApp } from '../../scripts/openssh.js'
import { startCredentialService, type RunningService } from '../../service/server.js'
import type { Credential } from '../../src/core/service/credential.js'
import type { CommonSettings } from '../../src/core/settings/types.js'
import { tokenObtained } from '../../src/core/kinds/token.js'
import { writesFor } from '../../src/core/step-writes.js'
import { githubHost } from '../../src/github/host.js'
import {
  API_KEY,
  BASE_URL,
  fakeClock,
  linesLeaking,
  runInProcess
} from '../helpers/in-process-step.js'
import { useNock } from '../helpers/nock-lifecycle.js'

const { runMain, runPost } = await import('../helpers/github-steps.js')

const TOKEN = `tok_${'5eed'.repeat(12)}`

const obtained = (tunnelUser: string) =>
  tokenObtained(
    {
      token: TOKEN,
      tunnelUser,
      clientId: 'client-1',
      tunnelHost: 'tunnel.example.test',
      tunnelPort: 2223,
      portDefaulted: false,
      expiresAt: '2026-11-23T11:00:00Z'
    } satisfies Credential,
    { kind: 'cicd', label: 'cicd', verb: 'Provisioned' },
    { project: 'web-shop' }
  )

const settings: CommonSettings = {
  revoke: true,
  failOnRevokeError: false,
  envPrefix: 'SVC',
  exportEnv: true,
  http: { maxAttempts: 1, timeoutSeconds: 5 },
  optionLabel: name => `input ${name}`
}

/** Hands over at once, as main does once the step has succeeded. */
function handOverNow(tunnelUser: string): void {
  githubHost().handOver(writesFor(obtained(tunnelUser), settings))
}

it('writes one table per credential, not the tables of earlier calls again', async () => {
  const step = await runInProcess(async () => {
    handOverNow('first')
    handOverNow('second')
  }, {})
  expect(step.summary.match(/<h3>Tunnel credentials<\/h3>/g)).toHaveLength(2)
  expect(step.summary.match(/<td>first<\/td>/g)).toHaveLength(1)
  expect(step.summary.match(/<td>second<\/td>/g)).toHaveLength(1)
  expect(step.summary).not.toContain(TOKEN)
})

it('warns and still publishes when the summary file cannot be written', async () => {
  // A directory where the file should be: appending to it fails with EISDIR.
  const step = await runInProcess(
    async () => {
      handOverNow('ab12c')
    },
    {},
    {
      env: { GITHUB_STEP_SUMMARY: process.cwd() }
    }
  )
  expect(step.warnings).toEqual([expect.stringMatching(/^Could not write the job summary: /)])
  expect(step.env.SVC_TUNNEL_USER).toBe('ab12c')
  expect(step.failed).toBe(false)
})

it('writes every variable, output and summary table in one hand-over', async () => {
  const step = await runInProcess(async () => {
    const writes = writesFor(obtained('ab12c'), settings)
    writes.outputs.url = 'https://web-ab12c.tunnel.example.test'
    writes.summary.push({ heading: 'Tunnel URLs', columns: ['Name', 'URL'], rows: [['web', 'x']] })
    githubHost().handOver(writes)
  }, {})
  expect(step.env.SVC_TUNNEL_TOKEN).toBe(TOKEN)
  expect(Object.keys(step.outputs).at(-1)).toBe('url')
  expect(step.outputs.url).toBe('https://web-ab12c.tunnel.example.test')
  expect(step.summary.match(/<h3>Tunnel (credentials|URLs)<\/h3>/g)).toHaveLength(2)
})

describe('main with expose, when the job summary cannot be written', () => {
  let service: RunningService
  let app: Awaited<ReturnType<typeof startLocalApp>>
  let runnerTemp: string
  beforeAll(async () => {
    service = await startCredentialService({ tunnel: { checkIntervalMs: 50 } })
    app = await startLocalApp('answer from the local app')
    runnerTemp = mkdtempSync(join(tmpdir(), 'host-test-'))
  })
  afterAll(async () => {
    await app.close()
    await service.close()
    rmSync(runnerTemp, { recursive: true, force: true })
  })
  // The keeper runs detached from its TypeScript source (tsx).
  const launch = {
    scriptPath: fileURLToPath(new URL('../../src/core/tunnel/keeper/main.ts', import.meta.url)),
    execArgv: ['--import', 'tsx']
  }
  const inputs = (extra: Record<string, string> = {}) => ({
    'api-key': service.seed.provisionKey,
    project: service.seed.project,
    'base-url': service.baseUrl,
    'url-template': `http://{name}-{user}.localhost:${service.tunnel!.frontPort}`,
    'timeout-seconds': '5',
    ...extra
  })
  const env = () => ({ RUNNER_TEMP: runnerTemp })
  const post = (state: Record<string, string>) =>
    runInProcess(() => runPost(), inputs(), { state, env: env() })

  it('keeps the tunnel and its outputs when the job summary cannot be written', async () => {
    // A directory where the summary file should be: appending to it fails with EISDIR.
    const step = await runInProcess(
      () => runMain(undefined, launch),
      inputs({ expose: `web=${app.port}` }),
      { env: { ...env(), GITHUB_STEP_SUMMARY: runnerTemp } }
    )
    expect(step.errors).toEqual([])
    expect(step.warnings).toEqual([
      expect.stringMatching(/^Could not write the job summary: .*EISDIR/)
    ])
    expect(step.outputs.url).toMatch(/^http:\/\/web-/)
    const after = await post(step.state)
    expect(after.warnings).toEqual([])
    expect(after.lines).toContain(
      `Revoked the tunnel token of user ${step.outputs['tunnel-user']}.`
    )
  }, 30_000)
})

describe('main, when the runner files cannot be written', () => {
  const ORIGIN = 'https://credentials.example.test'
  const CREDENTIAL = {
    token: TOKEN,
    tunnel_user: 'ab12c',
    client_id: 'client-77',
    expires_at: '2026-11-23T11:00:00Z',
    ttl_minutes: 60,
    tunnel_host: 'tunnel.example.test',
    tunnel_port: 2223,
    project_slug: 'web-shop'
  }
  useNock(nock)

  it('revokes it when writing the runner files fails', async () => {
    nock(ORIGIN).post('/functions/v1/credential-provision').reply(200, CREDENTIAL)
    const revoke = nock(ORIGIN)
      .post('/functions/v1/revoke-token', { tunnel_user: 'ab12c' })
      .reply(204)
    // A directory where the env file should be: appending to it fails.
    const step = await runInProcess(
      () => runMain(fakeClock()),
      { 'api-key': API_KEY, project: 'web-shop', 'base-url': BASE_URL },
      { env: { GITHUB_ENV: tmpdir() } }
    )
    expect(revoke.isDone()).toBe(true)
    expect(step.failed).toBe(true)
    expect(step.errors).toHaveLength(1)
    expect(step.state.credential).toBe('')
    expect(linesLeaking(step, TOKEN)).toEqual([])
  })
})
