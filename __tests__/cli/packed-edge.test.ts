/**
 * The packed CLI with `expose` through a real edge: Debian's Caddy in front of the stand-in's
 * front (service/edge/caddy.ts). The CLI trusts the edge's CA by `--ca-file` (the way the GitLab
 * component adds trust), a browser by the edge's public keys. What a user sees: the URL proof
 * passes through the edge, a real browser answers the gate's challenge, a signed webhook reaches
 * the app with its signature intact, the request log holds the public URLs, and `replay` sends
 * the webhook again to a receiver whose own signature check passes.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { startEdge, type RunningEdge } from '../../service/edge/caddy.js'
import { launchChromium } from '../helpers/edge-browser.js'
import { CLIENT_ADDRESS, curlThroughEdge, sendThroughEdge } from '../helpers/edge-clients.js'
import { startRecordingApp, type RecordingApp } from '../helpers/gate-clients.js'
import { statusOf, useService } from '../e2e/helpers.js'
import { expectNoSecretPrinted, loadEnvFile, useCliJob } from './cli-job.js'

const WEBHOOK_SECRET = randomBytes(20).toString('hex')
const signature = (body: Buffer) =>
  `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`
/** The receiver's check, as GitHub's libraries make it: over the raw body, in constant time. */
const verifies = (header: unknown, body: Buffer) =>
  typeof header === 'string' &&
  header.length === signature(body).length &&
  timingSafeEqual(Buffer.from(header), Buffer.from(signature(body)))

const service = useService({ tunnel: { checkIntervalMs: 100 } })
const job = useCliJob(service)
let edge: RunningEdge
let app: RecordingApp
let receiver: Server
const received: { target: string; verified: boolean }[] = []

beforeAll(async () => {
  edge = await startEdge({ upstreamPort: service().tunnel!.frontPort })
  app = await startRecordingApp()
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const verified = verifies(request.headers['x-hub-signature-256'], Buffer.concat(chunks))
      received.push({ target: request.url ?? '', verified })
      response.writeHead(verified ? 200 : 400).end()
    })
  })
  await new Promise<void>(resolve => receiver.listen(0, '127.0.0.1', resolve))
}, 60_000)
afterAll(async () => {
  await app?.close()
  await new Promise(resolve => receiver?.close(resolve))
  await edge?.stop()
})

it('provision --expose --ca-file: proof, browser gate, signed webhook and replay, all through the edge', async () => {
  const provisioned = await job.cli([
    'provision',
    '--expose',
    `web=${app.port}`,
    '--url-template',
    `https://{name}-{user}.${edge.publicDomain}:${edge.port}`,
    '--ca-file',
    edge.caFile,
    '--protect',
    'true',
    '--outputs-file',
    'outputs.json',
    '--log-bodies',
    '4096'
  ])
  expect(provisioned.stderr).toBe('')
  expect(provisioned.code).toBe(0)
  const vars = loadEnvFile(join(job.work(), 'tunnel.env'))
  const url = vars.SVC_TUNNEL_URL
  const user = vars.SVC_TUNNEL_USER
  const secret = vars.SVC_TUNNEL_GATE_SECRET
  expect(url).toBe(`https://web-${user}.${edge.publicDomain}:${edge.port}`)
  expect(provisioned.stdout).toContain(`Exposed web: ${url}`)

  // A real browser: the gate's challenge answered with the secret, over HTTP/2 to the edge.
  const browser = await launchChromium(edge)
  try {
    const context = await browser.newContext({
      httpCredentials: { username: 'tunnel', password: secret, origin: new URL(url).origin }
    })
    const page = await context.newPage()
    const response = await page.goto(`${url}/dashboard`)
    expect(response?.status()).toBe(200)
    expect(await page.textContent('body')).toBe('seen GET /dashboard\n')
  } finally {
    await browser.close()
  }
  // curl -u as docs/cli.md shows it; no secret: the tunnel's own 401.
  const byCurl = await curlThroughEdge(edge, ['-u', `tunnel:${secret}`, `${url}/api/health`])
  expect(byCurl).toMatchObject({ status: 200, version: '2' })
  expect((await sendThroughEdge(edge, `${url}/api/health`)).status).toBe(401)

  // A signed webhook to the webhook URL of the outputs file.
  const outputs = JSON.parse(readFileSync(join(job.work(), 'outputs.json'), 'utf8')) as Record<
    string,
    string
  >
  const hookUrl = (JSON.parse(outputs['protect-webhook-urls']) as Record<string, string>).web
  const payload = Buffer.from('{"action":"completed","run":{"id":42,"name":"caf\u00e9"}}\n')
  const delivered = await sendThroughEdge(edge, `${hookUrl}/hooks/github`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature(payload) },
    body: payload
  })
  expect(delivered.status).toBe(200)
  const hook = app.seen.find(request => request.target === '/hooks/github')!
  expect(verifies(hook.headers['x-hub-signature-256'], hook.body)).toBe(true)
  for (const request of app.seen)
    expect(request.headers.host).toBe(`web-${user}.${edge.internalDomain}`)
  // Each request with the address the edge saw its client come from (the browser's loopback,
  // curl's and the sender's own); the browser may also ask for /favicon.ico.
  const seen = app.seen.filter(request => request.target !== '/favicon.ico')
  expect(seen.map(request => [request.target, request.headers['x-real-ip']])).toEqual([
    ['/dashboard', '127.0.0.1'],
    ['/api/health', CLIENT_ADDRESS],
    ['/hooks/github', CLIENT_ADDRESS]
  ])

  const revoked = await job.cli(['revoke'])
  expect(revoked.code).toBe(0)
  expect(statusOf(service(), user)).toBe('revoked')
  const harPath = /log: (\S+\.har)/.exec(revoked.stdout)?.[1] ?? ''
  const har = JSON.parse(readFileSync(harPath, 'utf8')) as {
    log: { entries: { request: { url: string }; _client: string }[] }
  }
  const logged = har.log.entries.map(entry => entry.request.url)
  expect(logged.filter(logUrl => !logUrl.endsWith('/favicon.ico'))).toEqual([
    `${url}/dashboard`,
    `${url}/api/health`,
    `${url}/hooks/github`
  ])

  // replay: the recorded webhook, sent again, passes the receiver's own signature check.
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
  const replayed = await job.cli(['replay', harPath, '--to', receiverUrl, '--path', '/hooks/'], {
    PATH: '/usr/bin:/bin'
  })
  expect(replayed.stderr).toBe('')
  expect(replayed.code).toBe(0)
  expect(replayed.stdout).toMatch(/^#\d+ POST \/hooks\/github +200 -> 200 +OK$/m)
  expect(received).toEqual([{ target: '/hooks/github', verified: true }])
  for (const run of [provisioned, revoked, replayed]) {
    expectNoSecretPrinted(run, [service().seed.provisionKey, vars.SVC_TUNNEL_TOKEN, secret])
  }
}, 120_000)
