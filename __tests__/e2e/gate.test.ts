/**
 * The gate (`protect`) through the bundled action under the runner emulation, as a user sees it:
 * the public URL refuses a request without the per-run secret with 401 before the app sees it;
 * each form of the secret in the step's outputs (a header line for curl -H, a URL with user info
 * for browsers, a webhook URL with the secret in its path) reaches the app as if there were no
 * gate; the secret is masked before any line, absent from the HAR, which records the refusal; the
 * summary says the URLs are gated. Gate off, the summary says the URLs are public.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Job } from '../../scripts/job.js'
import { readValidHar } from '../core/tunnel/request-log/records.js'
import {
  curl,
  gateTraces,
  send,
  startRecordingApp,
  type RecordingApp
} from '../helpers/gate-clients.js'
import { annotations, expectNoLeak, inputsFor, useService } from './helpers.js'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
let app: RecordingApp
const temps: string[] = []

beforeAll(async () => (app = await startRecordingApp()))
beforeEach(() => (app.seen.length = 0))
afterAll(async () => {
  await app?.close()
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

async function exposeJob(extra: Record<string, string>) {
  const runnerTemp = mkdtempSync(join(tmpdir(), 'gate-e2e-'))
  temps.push(runnerTemp)
  const job = new Job({ env: { RUNNER_TEMP: runnerTemp }, timeoutMs: 30_000 })
  const use = await job.uses(
    inputsFor(service(), {
      'url-template': `http://{name}-{user}.localhost:${service().tunnel!.frontPort}`,
      'timeout-seconds': '5',
      expose: `web=${app.port}`,
      ...extra
    })
  )
  return { job, use }
}

it('protect: true refuses the URL without the secret with 401; every output form reaches the app as if ungated', async () => {
  const { job, use } = await exposeJob({ protect: 'true' })
  const { main } = use
  expect(main.exitCode).toBe(0)
  const { outputs } = main
  const secret = outputs['protect-secret']
  expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
  const basic = Buffer.from(`tunnel:${secret}`).toString('base64')
  const url = outputs.url
  expect(`${url}${outputs.urls}`).not.toContain(secret)

  // No secret: 401 from the tunnel, with a challenge a browser answers; the app saw nothing.
  const refused = await send(`${url}/admin?debug=1`)
  expect(refused.status).toBe(401)
  expect(refused.headers['www-authenticate']).toMatch(/^Basic realm=/)
  expect(refused.body).not.toContain(secret)
  const wrong = await send(`${url}/admin`, { headers: { 'X-Tunnel-Gate': `${secret}x` } })
  expect(wrong.status).toBe(401)
  expect(app.seen).toEqual([])

  // An API test: curl -H with the protect-header output as it is.
  const byHeader = await curl(['-H', outputs['protect-header'], `${url}/api/items?page=2`])
  expect(byHeader).toEqual({ status: 200, body: 'seen GET /api/items?page=2\n' })
  // A browser or Selenium: the protect-urls URL, its user info sent as Basic credentials.
  const protectedUrl = (JSON.parse(outputs['protect-urls']) as Record<string, string>).web
  expect((await curl([`${protectedUrl}/account`])).status).toBe(200)
  expect((await send(`${protectedUrl}/account`)).status).toBe(200)
  expect(app.seen.map(request => request.target)).toEqual([
    '/api/items?page=2',
    '/account',
    '/account'
  ])
  for (const request of app.seen) expect(gateTraces(request)).toEqual([])

  // A webhook sender that takes only a URL: the app sees the path without the secret, the body
  // byte for byte (its signature is computed over them), and the sender's own headers.
  const hooks = JSON.parse(outputs['protect-webhook-urls']) as Record<string, string>
  const payload = Buffer.from('{"id":"evt_1","type":"charge.succeeded","amount":1999}\n')
  app.seen.length = 0
  const delivered = await send(`${hooks.web}/hooks/stripe?attempt=1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=abc123' },
    body: payload
  })
  expect(delivered.status).toBe(200)
  expect(app.seen).toHaveLength(1)
  const [hook] = app.seen
  expect([hook.method, hook.target]).toEqual(['POST', '/hooks/stripe?attempt=1'])
  expect(hook.body.equals(payload)).toBe(true)
  expect(hook.headers['stripe-signature']).toBe('t=1,v1=abc123')
  expect(gateTraces(hook)).toEqual([])
  expect(JSON.stringify(hook.headers)).not.toContain(secret)

  // Masked before any line; no line, summary or state shows it, nor its Basic form.
  const secrets = [secret, basic, main.outputs.token, service().seed.provisionKey]
  expectNoLeak(main, { secrets, mustMask: [secret, main.outputs.token] })
  expect(main.env.SVC_TUNNEL_GATE_SECRET).toBe(secret)
  expect(main.summary).toMatch(/<td>Gate<\/td><td>On\b[^<]*protect-secret/)

  const harPath = main.outputs['request-log']
  const post = await use.post()
  expect(post.exitCode).toBe(0)
  expect(annotations(post, 'warning')).toEqual([])
  expectNoLeak(post, { secrets })
  // Post's table shows the refusals, with the tunnel's own 401.
  expect(post.summary).toMatch(/<td>\/admin\?debug=[^<]*<\/td><td>401<\/td>/)
  const har = await readValidHar(harPath)
  // The gate's refusals are the tunnel's own answers, apart from the app's entries.
  const refusals = har.log._tunnelAnswers.filter(entry => entry._tunnel === 'refused')
  expect(refusals.map(entry => entry.response.status)).toEqual([401, 401])
  expect(har.log.entries.map(entry => entry._tunnel)).toEqual(Array(4).fill('forwarded'))
  const text = readFileSync(harPath, 'utf8')
  for (const value of [secret, basic]) expect(text).not.toContain(value)
  await job.end()
}, 90_000)

it('gate off by default: the URL is public, and the summary says so and how to turn the gate on', async () => {
  const { job, use } = await exposeJob({})
  const { main } = use
  expect(main.exitCode).toBe(0)
  expect(Object.keys(main.outputs).filter(name => name.startsWith('protect-'))).toEqual([])
  expect(main.env.SVC_TUNNEL_GATE_SECRET).toBeUndefined()
  expect(await send(`${main.outputs.url}/admin`)).toMatchObject({ status: 200 })
  expect(app.seen.map(request => request.target)).toEqual(['/admin'])
  // The notice row names the input that turns the gate on.
  expect(main.summary).toMatch(/<td>Gate<\/td><td>Off\b[^<]*\bprotect\b[^<]*\btrue\b/)
  await job.end()
}, 60_000)
