/**
 * publishObtained's job summary through the GitHub host: what lands in GITHUB_STEP_SUMMARY, and
 * what happens when it cannot.
 */
import type { Credential } from '../../src/core/service/credential.js'
import type { CommonSettings } from '../../src/core/settings/types.js'
import { tokenObtained } from '../../src/core/kinds/token.js'
import { holdWrites, publishObtained } from '../../src/core/step-writes.js'
import { githubHost } from '../../src/github/host.js'
import { runInProcess } from '../helpers/in-process-step.js'

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

/** Writes at once, as main's flush does once the step has succeeded. */
function publishNow(tunnelUser: string): void {
  const host = githubHost()
  const writes = holdWrites(host, host.log)
  publishObtained(obtained(tunnelUser), settings, writes)
  writes.flush()
}

const settings: CommonSettings = {
  revoke: true,
  failOnRevokeError: false,
  envPrefix: 'SVC',
  exportEnv: true,
  http: { maxAttempts: 1, timeoutSeconds: 5 },
  optionLabel: name => `input ${name}`
}

it('writes one table per credential, not the tables of earlier calls again', async () => {
  const step = await runInProcess(async () => {
    publishNow('first')
    publishNow('second')
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
      publishNow('ab12c')
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

it('holds every variable, output and summary back until flush, then writes them in order', async () => {
  let beforeFlush: { env: string; outputs: string; summary: string } | undefined
  const step = await runInProcess(async () => {
    const host = githubHost()
    const writes = holdWrites(host, host.log)
    publishObtained(obtained('ab12c'), settings, writes)
    writes.setOutput('url', 'https://web-ab12c.tunnel.example.test')
    const { readFileSync } = await import('node:fs')
    const read = (name: string) => readFileSync(process.env[name]!, 'utf8')
    beforeFlush = {
      env: read('GITHUB_ENV'),
      outputs: read('GITHUB_OUTPUT'),
      summary: read('GITHUB_STEP_SUMMARY')
    }
    writes.flush()
    writes.flush()
  }, {})
  expect(beforeFlush).toEqual({ env: '', outputs: '', summary: '' })
  expect(step.env.SVC_TUNNEL_TOKEN).toBe(TOKEN)
  expect(Object.keys(step.outputs).at(-1)).toBe('url')
  expect(step.outputs.url).toBe('https://web-ab12c.tunnel.example.test')
  // Flushed once: a second flush writes nothing again.
  expect(step.summary.match(/<h3>Tunnel credentials<\/h3>/g)).toHaveLength(1)
})
