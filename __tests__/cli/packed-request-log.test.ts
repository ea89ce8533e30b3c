/**
 * The request log through the packed CLI (Node 20) with the real tunnel process: provision
 * --expose writes the HAR at --request-log's default (beside the env file), a request through the
 * tunnel lands in it, and revoke prints the counts with the HAR's path and the timeline line, and
 * keeps the HAR. Needs the bundle (npm run bundle) with the tunnel process's request log.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { useService } from '../e2e/helpers.js'
import { readValidHar } from '../core/tunnel/request-log/records.js'
import { expectNoSecretPrinted, fetchUrl, loadEnvFile, useCliJob } from './cli-job.js'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
const job = useCliJob(service)

it('provision --expose logs a request in requests.har; revoke prints its counts and keeps it', async () => {
  const provisioned = await job.cli([
    'provision',
    ...job.exposeFlags(),
    '--outputs-file',
    'out.json'
  ])
  expect(provisioned.code).toBe(0)
  const harPath = join(job.work(), 'requests.har')
  const outputs = JSON.parse(readFileSync(join(job.work(), 'out.json'), 'utf8'))
  expect(outputs['request-log']).toBe(harPath)
  expect((await readValidHar(harPath)).log.entries).toEqual([])
  const vars = loadEnvFile(join(job.work(), 'tunnel.env'))
  expect((await fetchUrl(service(), vars.SVC_TUNNEL_URL)).status).toBe(200)

  const revoked = await job.cli(['revoke'])
  expect(revoked.code).toBe(0)
  const lines = revoked.stdout.split('\n')
  const counts = lines.filter(line => line.includes(harPath))
  expect(counts).toHaveLength(1)
  expect(counts[0]).toMatch(/\b2xx 1\b/)
  // One line about the tunnel (issue 26, item 11: there were two, `up 11 s` and `up the whole
  // job`), its connections told apart from the request counted above.
  expect(lines.filter(line => line.startsWith('Tunnel:'))).toEqual([
    expect.stringMatching(
      /^Tunnel: up \d+ s, never down; \d+ connections? \(\d+ requests?: a connection can carry several\), /
    )
  ])
  // Kept: it holds no secret, and the job may keep it as an artifact.
  expect(existsSync(harPath)).toBe(true)
  const entries = (await readValidHar(harPath)).log.entries
  expect(entries.filter(entry => entry._tunnel === 'forwarded')).toHaveLength(1)
  expectNoSecretPrinted(revoked, [service().seed.provisionKey, vars.SVC_TUNNEL_TOKEN])
  const har = readFileSync(harPath, 'utf8')
  expect(har).not.toContain(vars.SVC_TUNNEL_TOKEN)
})
