/** publishCredential's job summary: what lands in GITHUB_STEP_SUMMARY, and what happens when it cannot. */
import type { Credential } from '../src/credential.js'
import type { MainSettings } from '../src/inputs.js'
import { publishCredential } from '../src/publish.js'
import { runInProcess } from './helpers/in-process-step.js'

const TOKEN = `tok_${'5eed'.repeat(12)}`

const credential = (tunnelUser: string): Credential => ({
  flavour: 'cicd',
  token: TOKEN,
  tunnelUser,
  clientId: 'client-1',
  tunnelHost: 'tunnel.example.test',
  tunnelPort: 2223,
  portDefaulted: false,
  expiresAt: '2026-11-23T11:00:00Z'
})

const settings: MainSettings = {
  flavour: 'cicd',
  fellBackToFree: false,
  apiKey: `sk_${'0'.repeat(64)}`,
  project: 'web-shop',
  environment: '',
  baseUrl: 'https://credentials.example.test/functions/v1',
  revoke: true,
  failOnRevokeError: false,
  envPrefix: 'SVC',
  exportEnv: true,
  http: { maxAttempts: 1, timeoutSeconds: 5 }
}

it('writes one table per credential, not the tables of earlier calls again', async () => {
  const step = await runInProcess(async () => {
    await publishCredential(credential('first'), settings)
    await publishCredential(credential('second'), settings)
  }, {})
  expect(step.summary.match(/<h3>Tunnel credentials<\/h3>/g)).toHaveLength(2)
  expect(step.summary.match(/<td>first<\/td>/g)).toHaveLength(1)
  expect(step.summary.match(/<td>second<\/td>/g)).toHaveLength(1)
  expect(step.summary).not.toContain(TOKEN)
})

it('warns and still publishes when the summary file cannot be written', async () => {
  // A directory where the file should be: appending to it fails with EISDIR.
  const step = await runInProcess(
    () => publishCredential(credential('ab12c'), settings),
    {},
    {
      env: { GITHUB_STEP_SUMMARY: process.cwd() }
    }
  )
  expect(step.warnings).toEqual([expect.stringMatching(/^Could not write the job summary: /)])
  expect(step.env.SVC_TUNNEL_USER).toBe('ab12c')
  expect(step.failed).toBe(false)
})
