/**
 * `expose` through a real edge: the bundled action under the runner emulation, with Debian's
 * Caddy in front of the stand-in's front (service/edge/caddy.ts) as the real tunnel server's
 * reference deployment puts it. Every request to a public URL goes client -> Caddy (https,
 * HTTP/2 or HTTP/1.1) -> the front (HTTP/1.1, Host rewritten to an internal name, X-Forwarded-*
 * and X-Real-IP added) -> SSH -> the tunnel process -> the app. The runner's Node trusts the
 * edge's CA through NODE_EXTRA_CA_CERTS, as a runner behind such an edge would be set up.
 */
import { createHmac, randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Job } from '../../scripts/job.js'
import { startEdge, type RunningEdge } from '../../service/edge/caddy.js'
import { readValidHar } from '../core/tunnel/request-log/records.js'
import { launchChromium } from '../helpers/edge-browser.js'
import { CLIENT_ADDRESS, curlThroughEdge, sendThroughEdge } from '../helpers/edge-clients.js'
import { gateTraces, startRecordingApp, type RecordingApp } from '../helpers/gate-clients.js'
import { annotations, expectNoLeak, inputsFor, useService } from './helpers.js'

const WEBHOOK_SECRET = randomBytes(20).toString('hex')
/** GitHub's webhook signature: HMAC-SHA256 of the body as sent, which the receiver recomputes. */
const signature = (body: Buffer) =>
  `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`

const service = useService({ tunnel: { checkIntervalMs: 100 } })
let edge: RunningEdge
let app: RecordingApp
const temps: string[] = []

beforeAll(async () => {
  edge = await startEdge({ upstreamPort: service().tunnel!.frontPort })
  app = await startRecordingApp()
}, 60_000)
beforeEach(() => (app.seen.length = 0))
afterAll(async () => {
  await app?.close()
  await edge?.stop()
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

async function exposeJob(extra: Record<string, string>) {
  const runnerTemp = mkdtempSync(join(tmpdir(), 'edge-e2e-'))
  temps.push(runnerTemp)
  const job = new Job({
    env: { RUNNER_TEMP: runnerTemp, NODE_EXTRA_CA_CERTS: edge.caFile },
    timeoutMs: 30_000
  })
  const use = await job.uses(
    inputsFor(service(), {
      'timeout-seconds': '5',
      expose: `web=${app.port}`,
      ...extra
    })
  )
  return { job, use }
}

describe('the spec answer, url-template naming the edge', () => {
  it('proves the URL through the edge; each gate form and a webhook reach the app; the HAR and post see the edge', async () => {
    const { job, use } = await exposeJob({
      'url-template': `https://{name}-{user}.${edge.publicDomain}:${edge.port}`,
      protect: 'true'
    })
    const { main } = use
    expect(annotations(main, 'error')).toEqual([])
    expect(main.exitCode).toBe(0)
    const { outputs } = main
    const url = outputs.url
    const user = outputs['tunnel-user']
    expect(url).toBe(`https://web-${user}.${edge.publicDomain}:${edge.port}`)
    const secret = outputs['protect-secret']

    // No secret: the tunnel's 401 comes back through the edge; the app saw nothing.
    const refused = await sendThroughEdge(edge, `${url}/admin`)
    expect(refused.status).toBe(401)
    expect(refused.headers['www-authenticate']).toMatch(/^Basic realm=/)
    expect(app.seen).toEqual([])

    // curl -H with the protect-header output, over HTTP/2 to the edge.
    const byHeader = await curlThroughEdge(edge, [
      '-H',
      outputs['protect-header'],
      `${url}/api?x=1`
    ])
    expect(byHeader).toEqual({ status: 200, body: 'seen GET /api?x=1\n', version: '2' })
    // The protect-urls form, its user info sent as Basic credentials.
    const protectedUrl = (JSON.parse(outputs['protect-urls']) as Record<string, string>).web
    expect((await sendThroughEdge(edge, `${protectedUrl}/account`)).status).toBe(200)
    // The same URL in a real browser, which answers the gate's challenge with its user info.
    const browser = await launchChromium(edge)
    try {
      const page = await browser.newPage()
      const response = await page.goto(`${protectedUrl}/browser`)
      expect(response?.status()).toBe(200)
      expect(await page.textContent('body')).toBe('seen GET /browser\n')
    } finally {
      await browser.close()
    }
    app.seen.splice(0, app.seen.length, ...app.seen.filter(r => r.target !== '/favicon.ico'))
    // A signed webhook to the webhook URL: path without the secret, body byte for byte.
    const hooks = JSON.parse(outputs['protect-webhook-urls']) as Record<string, string>
    const payload = Buffer.from('{"action":"opened","number":7,"note":"caf\u00e9 \u2713"}\n')
    const delivered = await sendThroughEdge(edge, `${hooks.web}/hooks/github?attempt=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature(payload) },
      body: payload
    })
    expect(delivered.status).toBe(200)
    expect(app.seen.map(request => `${request.method} ${request.target}`)).toEqual([
      'GET /api?x=1',
      'GET /account',
      'GET /browser',
      'POST /hooks/github?attempt=1'
    ])
    // The receiver's check: the signature over the body it got is the one the sender sent.
    const hook = app.seen[3]
    expect(hook.headers['x-hub-signature-256']).toBe(signature(hook.body))
    expect(hook.body.equals(payload)).toBe(true)
    for (const request of app.seen) {
      expect(gateTraces(request)).toEqual([])
      // What the edge sent, passed on by the tunnel: the internal Host and the edge's headers.
      expect(request.headers.host).toBe(`web-${user}.${edge.internalDomain}`)
      expect(request.headers['x-forwarded-proto']).toBe('https')
    }
    // The address the edge saw each client come from: the browser connects from 127.0.0.1.
    expect(app.seen.map(request => request.headers['x-real-ip'])).toEqual([
      CLIENT_ADDRESS,
      CLIENT_ADDRESS,
      '127.0.0.1',
      CLIENT_ADDRESS
    ])

    const secrets = [secret, outputs.token, service().seed.provisionKey]
    expectNoLeak(main, { secrets, mustMask: [secret, outputs.token] })
    const harPath = outputs['request-log']
    const post = await use.post()
    expect(post.exitCode).toBe(0)
    expect(annotations(post, 'warning')).toEqual([])
    expectNoLeak(post, { secrets })
    const har = await readValidHar(harPath)
    // The HAR's URLs are the public ones the edge was asked for, not the internal Host.
    const logged = har.log.entries.map(entry => entry.request.url.replace(/\?.*/, ''))
    expect(logged.filter(logUrl => !logUrl.endsWith('/favicon.ico'))).toEqual([
      `${url}/api`,
      `${url}/account`,
      `${url}/browser`,
      `${url}/hooks/github`
    ])
    // The proof, answered by the tunnel through the edge, and the gate's refusal.
    expect(
      har.log._tunnelAnswers.map(entry => [entry._tunnel, entry.response.status, entry.request.url])
    ).toEqual([
      ['proof', 200, expect.stringMatching(new RegExp(`^${url}/\\.well-known/`))],
      ['refused', 401, `${url}/admin`],
      // The browser's first request is challenged, then admitted with the user info it sends.
      ['refused', 401, `${url}/browser`],
      ['admitted', 200, `${url}/browser`]
    ])
    // The channel's originator is the edge (127.0.0.1), never the public client.
    for (const entry of har.log.entries) expect(entry._client).toMatch(/^127\.0\.0\.1:\d+$/)
    expect(readFileSync(harPath, 'utf8')).not.toContain(secret)
    await job.end()
  }, 90_000)
})
