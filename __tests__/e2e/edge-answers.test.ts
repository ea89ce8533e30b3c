/**
 * A default run (url-template empty) through a real edge, in both answer shapes: the URL the
 * action hands out is formed from the answer, has no port (the edge is on 443, as a real one is:
 * the runner reaches it through its https_proxy, which tunnels to the test's Caddy), and the proof
 * passes through the edge. A second job asking for a name in use (the product's dedicated server
 * names hosts `{name}.{fqdn}`; in the spec's shape, the same credential reused) fails main at
 * once, and the first URL keeps answering. The request log holds the client address the edge reported. Gated, in each shape:
 * the header form (curl over HTTP/2), the URL form in Chromium, and a signed webhook reach the app;
 * `replay` (the CLI's own code) sends the webhook from the job's HAR again, and it verifies.
 */
import { createHmac, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Job } from '../../scripts/job.js'
import { startEdge, type RunningEdge } from '../../service/edge/caddy.js'
import type { ServiceOptions } from '../../service/server.js'
import { main as cliMain } from '../../src/cli/index.js'
import { readValidHar } from '../core/tunnel/request-log/records.js'
import { launchChromium } from '../helpers/edge-browser.js'
import { CLIENT_ADDRESS, curlThroughEdge, sendThroughEdge } from '../helpers/edge-clients.js'
import { startEdgeProxy, type EdgeProxy } from '../helpers/edge-proxy.js'
import { startRecordingApp, type RecordingApp } from '../helpers/gate-clients.js'
import { annotations, inputsFor, useService } from './helpers.js'

const WEBHOOK_SECRET = randomBytes(20).toString('hex')
const signature = (body: Buffer) =>
  `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`

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

    async function exposeJob(extra: Record<string, string> = {}) {
      const runnerTemp = mkdtempSync(join(tmpdir(), `edge-${shape}-e2e-`))
      temps.push(runnerTemp)
      // As a runner behind a proxy: https through it, the local service (plain http) directly.
      const job = new Job({
        env: { RUNNER_TEMP: runnerTemp, NODE_EXTRA_CA_CERTS: edge.caFile, https_proxy: proxy.url },
        timeoutMs: 30_000
      })
      const use = await job.uses(
        inputsFor(service(), { 'timeout-seconds': '5', expose: `web=${app.port}`, ...extra })
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

    it('gated: each form of the secret, a real browser, and a signed webhook reach the app; replay resends the webhook', async () => {
      const { job, use } = await exposeJob({ protect: 'true', 'log-bodies': '4096' })
      const { main } = use
      expect(main.exitCode).toBe(0)
      const { outputs } = main
      const url = outputs.url
      expect(new URL(url).port).toBe('')
      expect((await sendThroughEdge(edge, `${url}/admin`)).status).toBe(401)
      const byHeader = await curlThroughEdge(edge, ['-H', outputs['protect-header'], `${url}/api`])
      expect(byHeader).toEqual({ status: 200, body: 'seen GET /api\n', version: '2' })
      // The browser form: the protect-urls URL, on 443 as the browser sees it.
      const protectedUrl = (JSON.parse(outputs['protect-urls']) as Record<string, string>).web
      const browser = await launchChromium(edge)
      try {
        const response = await (await browser.newPage()).goto(`${protectedUrl}/browser`)
        expect(response?.status()).toBe(200)
      } finally {
        await browser.close()
      }
      const hookUrl = (JSON.parse(outputs['protect-webhook-urls']) as Record<string, string>).web
      const payload = Buffer.from('{"action":"opened","number":7}\n')
      const delivered = await sendThroughEdge(edge, `${hookUrl}/hooks/github`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature(payload) },
        body: payload
      })
      expect(delivered.status).toBe(200)
      const seen = app.seen.filter(request => request.target !== '/favicon.ico')
      expect(seen.map(request => request.target)).toEqual(['/api', '/browser', '/hooks/github'])
      expect(seen[2].headers['x-hub-signature-256']).toBe(signature(seen[2].body))

      const harPath = outputs['request-log']
      expect((await use.post()).exitCode).toBe(0)
      await job.end()
      // replay, as a developer runs it on the HAR the job kept: the webhook verifies again.
      const lines: string[] = []
      const terminal = {
        stdout: (line: string) => lines.push(line),
        stderr: (line: string) => lines.push(line)
      }
      const receiver = await startRecordingApp()
      try {
        const code = await cliMain(
          ['replay', harPath, '--to', `http://127.0.0.1:${receiver.port}`, '--path', '/hooks/'],
          {},
          terminal
        )
        expect(lines.filter(line => / OK$/.test(line))).toEqual([
          expect.stringMatching(/^#\d+ POST \/hooks\/github +200 -> 200 +OK$/)
        ])
        expect(code).toBe(0)
        expect(receiver.seen).toHaveLength(1)
        expect(receiver.seen[0].headers['x-hub-signature-256']).toBe(
          signature(receiver.seen[0].body)
        )
        expect(receiver.seen[0].body.equals(payload)).toBe(true)
      } finally {
        await receiver.close()
      }
      app.seen.length = 0
    }, 120_000)

    it('a second job asking for the same name fails at once; the first URL keeps answering', async () => {
      const first = await exposeJob()
      expect(first.use.main.exitCode).toBe(0)
      const { url } = first.use.main.outputs
      // The spec's names carry the tunnel user: only the same credential, reused by another job
      // (credential: existing), asks for the same name. The product's dedicated server names by
      // `{name}` alone, so any second job asking for web collides.
      const sameCredential: Record<string, string> =
        shape === 'spec'
          ? {
              credential: 'existing',
              'tunnel-user': first.use.main.outputs['tunnel-user'],
              'tunnel-token': first.use.main.outputs.token,
              'tunnel-host': first.use.main.outputs['tunnel-host'],
              'tunnel-port': first.use.main.outputs['tunnel-port']
            }
          : {}
      const started = Date.now()
      const second = await exposeJob(sameCredential)
      const took = Date.now() - started
      // One error naming the entry; nothing for later steps. (An existing credential stays in
      // the state, marked as one post does not revoke.)
      const failed = second.use.main
      expect(failed.exitCode).toBe(1)
      expect(annotations(failed, 'error')).toEqual([
        expect.stringMatching(/the name web is taken on the tunnel server/)
      ])
      expect(failed.env).toEqual({})
      expect(failed.outputs).toEqual({})
      expect(took).toBeLessThan(15_000)
      expect((await sendThroughEdge(edge, `${url}/still`)).status).toBe(200)
      await second.job.end()
      await first.job.end()
      app.seen.length = 0
    }, 90_000)
  }
)
