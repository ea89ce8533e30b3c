/**
 * The packed CLI, a default run (no --url-template) against the product's answer of a shared
 * server, through a real edge: the URL is `https://{name}-{user}.{tunnel_fqdn}` with no port, the
 * proof reaches the edge on 443 through the job's https_proxy and trusts it by --ca-file, and the
 * request log holds the client address the edge reported.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startEdge, type RunningEdge } from '../../service/edge/caddy.js'
import { CLIENT_ADDRESS, curlThroughEdge } from '../helpers/edge-clients.js'
import { startEdgeProxy, type EdgeProxy } from '../helpers/edge-proxy.js'
import { statusOf, useService } from '../e2e/helpers.js'
import { expectNoSecretPrinted, loadEnvFile, useCliJob } from './cli-job.js'

const FQDN = 'cicd.eu1.localhost'
const service = useService({
  tunnel: { checkIntervalMs: 100 },
  answerShape: 'product',
  tunnelFqdn: FQDN,
  ownership: 'shared'
})
const job = useCliJob(service)
let edge: RunningEdge
let proxy: EdgeProxy

beforeAll(async () => {
  edge = await startEdge({ upstreamPort: service().tunnel!.frontPort, publicDomain: FQDN })
  proxy = await startEdgeProxy(edge)
}, 60_000)
afterAll(async () => {
  await proxy?.close()
  await edge?.stop()
})

it('provision hands out https://{name}-{user}.{tunnel_fqdn}, proved through the edge', async () => {
  const provisioned = await job.cli(
    ['provision', '--expose', `web=${job.app().port}`, '--ca-file', edge.caFile],
    job.env({ https_proxy: proxy.url })
  )
  expect(provisioned.stderr).toBe('')
  expect(provisioned.code).toBe(0)
  const vars = loadEnvFile(join(job.work(), 'tunnel.env'))
  const url = vars.SVC_TUNNEL_URL
  expect(url).toBe(`https://web-${vars.SVC_TUNNEL_USER}.${FQDN}`)
  expect(provisioned.stdout).toMatch(/URL rule: .*tunnel_fqdn/)
  expect(proxy.targets).toContain(`web-${vars.SVC_TUNNEL_USER}.${FQDN}:443`)

  const answer = await curlThroughEdge(edge, [`${url}/status`])
  expect(answer).toMatchObject({ status: 200, version: '2' })
  expect(answer.body).toContain('answer from your local app')

  const revoked = await job.cli(['revoke'])
  expect(revoked.code).toBe(0)
  expect(statusOf(service(), vars.SVC_TUNNEL_USER)).toBe('revoked')
  const harPath = /log: (\S+\.har)/.exec(revoked.stdout)?.[1] ?? ''
  const har = JSON.parse(readFileSync(harPath, 'utf8')) as {
    log: { entries: { request: { url: string }; _client: string; _edgeReportedClient?: string }[] }
  }
  const entry = har.log.entries.find(logged => logged.request.url === `${url}/status`)
  expect(entry?._edgeReportedClient).toBe(CLIENT_ADDRESS)
  expect(entry?._client).toMatch(/^127\.0\.0\.1:\d+$/)
  for (const run of [provisioned, revoked]) {
    expectNoSecretPrinted(run, [service().seed.provisionKey, vars.SVC_TUNNEL_TOKEN])
  }
}, 90_000)
