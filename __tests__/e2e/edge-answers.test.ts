/**
 * A default run (url-template empty) through a real edge, in both answer shapes: the URL the
 * action hands out is formed from the answer, has no port (the edge is on 443, as a real one is:
 * the runner reaches it through its https_proxy, which tunnels to the test's Caddy), and the proof
 * passes through the edge. The product's shape on a dedicated server names hosts `{name}.{fqdn}`,
 * so a second job asking for the same name collides: main fails at once, and the first URL keeps
 * answering. The request log holds the client address the edge reported.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Job } from '../../scripts/job.js'
import { startEdge, type RunningEdge } from '../../service/edge/caddy.js'
import type { ServiceOptions } from '../../service/server.js'
import { readValidHar } from '../core/tunnel/request-log/records.js'
import { CLIENT_ADDRESS, curlThroughEdge, sendThroughEdge } from '../helpers/edge-clients.js'
import { startEdgeProxy, type EdgeProxy } from '../helpers/edge-proxy.js'
import { startRecordingApp, type RecordingApp } from '../helpers/gate-clients.js'
import { annotations, expectFailedMain, inputsFor, useService } from './helpers.js'

/** The shapes, each with the domain its URLs are under (where the edge serves). */
const SHAPES: [string, ServiceOptions, string][] = [
  // The spec's shape names the tunnel host: `localhost`, which the SSH client reaches too.
  ['spec', { tunnelHost: 'localhost' }, 'localhost'],
  [
    'product',
    { answerShape: 'product', tunnelFqdn: 'cicd.eu1.localhost', ownership: 'dedicated' },
    'cicd.eu1.localhost'
  ]
]

describe.each(SHAPES)(
  'the %s answer, url-template empty, through the edge',
  (shape, options, domain) => {
    const service = useService({ tunnel: { checkIntervalMs: 100 }, ...options })
    let edge: RunningEdge
    let proxy: EdgeProxy
    let app: RecordingApp
    const temps: string[] = []

    beforeAll(async () => {
      edge = await startEdge({ upstreamPort: service().tunnel!.frontPort, publicDomain: domain })
      proxy = await startEdgeProxy(edge)
      app = await startRecordingApp()
    }, 60_000)
    afterAll(async () => {
      await app?.close()
      await proxy?.close()
      await edge?.stop()
      for (const dir of temps) rmSync(dir, { recursive: true, force: true })
    })

    async function exposeJob() {
      const runnerTemp = mkdtempSync(join(tmpdir(), `edge-${shape}-e2e-`))
      temps.push(runnerTemp)
      // As a runner behind a proxy: https through it, the local service (plain http) directly.
      const job = new Job({
        env: { RUNNER_TEMP: runnerTemp, NODE_EXTRA_CA_CERTS: edge.caFile, https_proxy: proxy.url },
        timeoutMs: 30_000
      })
      const use = await job.uses(
        inputsFor(service(), { 'timeout-seconds': '5', expose: `web=${app.port}` })
      )
      return { job, use }
    }

    it('hands out the URL the server forms, proves it through the edge, and logs the edge-reported client', async () => {
      const { job, use } = await exposeJob()
      const { main } = use
      expect(annotations(main, 'error')).toEqual([])
      expect(main.exitCode).toBe(0)
      const user = main.outputs['tunnel-user']
      const url = main.outputs.url
      expect(url).toBe(shape === 'spec' ? `https://web-${user}.${domain}` : `https://web.${domain}`)
      // The proof went to the edge, on 443, by the runner's proxy.
      expect(proxy.targets).toContain(`${new URL(url).hostname}:443`)

      const answer = await curlThroughEdge(edge, [`${url}/orders?page=2`])
      expect(answer).toEqual({ status: 200, body: 'seen GET /orders?page=2\n', version: '2' })
      const [seen] = app.seen
      expect(seen.headers.host).toBe(
        `${new URL(url).hostname.split('.')[0]}.${edge.internalDomain}`
      )
      expect(seen.headers['x-forwarded-host']).toBe(new URL(url).hostname)

      const harPath = main.outputs['request-log']
      const post = await use.post()
      expect(post.exitCode).toBe(0)
      const har = await readValidHar(harPath)
      const entry = har.log.entries.find(logged => logged.request.url.includes('/orders'))!
      expect(entry.request.url).toBe(`${url}/orders?page=REDACTED`)
      // Both addresses: the client's as the edge reported it, and the channel's (the edge's own).
      expect(entry._edgeReportedClient).toBe(CLIENT_ADDRESS)
      expect(entry._client).toMatch(/^127\.0\.0\.1:\d+$/)
      await job.end()
      app.seen.length = 0
    }, 90_000)

    if (shape === 'product') {
      it('a second job asking for the same name fails at once; the first URL keeps answering', async () => {
        const first = await exposeJob()
        expect(first.use.main.exitCode).toBe(0)
        const url = first.use.main.outputs.url
        const started = Date.now()
        const second = await exposeJob()
        const took = Date.now() - started
        expectFailedMain(second.use.main, /refused the forward for "web"\. The name may be in use/)
        expect(took).toBeLessThan(15_000)
        expect((await sendThroughEdge(edge, `${url}/still`)).status).toBe(200)
        await second.job.end()
        await first.job.end()
      }, 90_000)
    }
  }
)
