/**
 * The gate (`--protect`) through the packed CLI (Node 20) with the real tunnel process: provision
 * puts the secret in the variables file (SVC_TUNNEL_GATE_SECRET) and its forms in the outputs
 * file, never on stdout or stderr; the URL answers 401 without it and reaches the app with it;
 * revoke counts the refusal; `run` gives its command the secret in its environment. Gate off,
 * provision says the URLs are public and names --protect.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { useService } from '../e2e/helpers.js'
import { readValidHar } from '../core/tunnel/request-log/records.js'
import {
  curl,
  gateTraces,
  send,
  startRecordingApp,
  type RecordingApp
} from '../helpers/gate-clients.js'
import { expectNoSecretPrinted, loadEnvFile, useCliJob } from './cli-job.js'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
const job = useCliJob(service)
let app: RecordingApp

beforeAll(async () => (app = await startRecordingApp()))
beforeEach(() => (app.seen.length = 0))
afterAll(() => app?.close())

const flags = () => [
  '--expose',
  `web=${app.port}`,
  '--url-template',
  `http://{name}-{user}.localhost:${service().tunnel!.frontPort}`
]

it('provision --protect: 401 without the secret, the app reached with each form; revoke counts the refusal', async () => {
  const provisioned = await job.cli([
    'provision',
    ...flags(),
    '--protect',
    '--outputs-file',
    'out.json'
  ])
  expect(provisioned.code).toBe(0)
  const vars = loadEnvFile(join(job.work(), 'tunnel.env'))
  const outputs = JSON.parse(readFileSync(join(job.work(), 'out.json'), 'utf8'))
  const secret = vars.SVC_TUNNEL_GATE_SECRET
  expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
  expect(outputs['protect-secret']).toBe(secret)
  expect(vars.SVC_TUNNEL_URL).not.toContain(secret)
  const basic = Buffer.from(`tunnel:${secret}`).toString('base64')
  const url = vars.SVC_TUNNEL_URL

  const refused = await send(`${url}/admin`)
  expect(refused.status).toBe(401)
  expect(refused.headers['www-authenticate']).toMatch(/^Basic realm=/)
  expect(app.seen).toEqual([])

  expect(await curl(['-H', outputs['protect-header'], `${url}/api`])).toEqual({
    status: 200,
    body: 'seen GET /api\n'
  })
  expect((await curl([`${JSON.parse(outputs['protect-urls']).web}/page`])).status).toBe(200)
  const payload = Buffer.from('{"event":"push","ref":"refs/heads/main"}')
  const hook = await send(`${JSON.parse(outputs['protect-webhook-urls']).web}/hooks/github`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=00ff' },
    body: payload
  })
  expect(hook.status).toBe(200)
  expect(app.seen.map(request => `${request.method} ${request.target}`)).toEqual([
    'GET /api',
    'GET /page',
    'POST /hooks/github'
  ])
  for (const request of app.seen) expect(gateTraces(request)).toEqual([])
  expect(app.seen[2].body.equals(payload)).toBe(true)
  expect(app.seen[2].headers['x-hub-signature-256']).toBe('sha256=00ff')
  // Said gated, with the secret only in the files.
  expect(provisioned.stdout).toMatch(/^ {2}Gate: On\b/m)

  const revoked = await job.cli(['revoke'])
  expect(revoked.code).toBe(0)
  const harPath = join(job.work(), 'requests.har')
  const counts = revoked.stdout.split('\n').filter(line => line.includes(harPath))
  expect(counts).toHaveLength(1)
  expect(counts[0]).toMatch(/\b2xx 3\b/)
  expect(counts[0]).toMatch(/\brefused 1\b/)
  const secrets = [secret, basic, service().seed.provisionKey, vars.SVC_TUNNEL_TOKEN]
  for (const run of [provisioned, revoked]) expectNoSecretPrinted(run, secrets)
  const har = await readValidHar(harPath)
  // The refusal is the tunnel's own answer: in its own list, not among the app's entries.
  expect(har.log._tunnelAnswers.filter(entry => entry._tunnel === 'refused')).toHaveLength(1)
  expect(har.log.entries.filter(entry => entry._tunnel === 'refused')).toHaveLength(0)
  const text = readFileSync(harPath, 'utf8')
  for (const value of [secret, basic]) expect(text).not.toContain(value)
})

it('run --protect gives the command the secret in its environment, and the URL refuses requests without it', async () => {
  const script =
    'curl -s -o /dev/null -w "without %{http_code}\\n" "$SVC_TUNNEL_URL/x"; ' +
    'curl -s -o /dev/null -w "with %{http_code}\\n" -H "X-Tunnel-Gate: $SVC_TUNNEL_GATE_SECRET" "$SVC_TUNNEL_URL/x"; ' +
    'printf %s "$SVC_TUNNEL_GATE_SECRET" > secret.txt'
  const ran = await job.cli(['run', ...flags(), '--protect', '--', 'sh', '-c', script])
  expect(ran.code).toBe(0)
  expect(ran.stdout.split('\n')).toEqual(expect.arrayContaining(['without 401', 'with 200']))
  expect(app.seen.map(request => request.target)).toEqual(['/x'])
  const secret = readFileSync(join(job.work(), 'secret.txt'), 'utf8')
  expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
  expectNoSecretPrinted(ran, [secret, service().seed.provisionKey])
})

it('gate off by default: the URL is public, and provision says so and names --protect', async () => {
  const provisioned = await job.cli(['provision', ...flags(), '--outputs-file', 'out.json'])
  expect(provisioned.code).toBe(0)
  const vars = loadEnvFile(join(job.work(), 'tunnel.env'))
  expect(vars.SVC_TUNNEL_GATE_SECRET).toBeUndefined()
  const outputs = JSON.parse(readFileSync(join(job.work(), 'out.json'), 'utf8'))
  expect(Object.keys(outputs).filter(name => name.startsWith('protect-'))).toEqual([])
  expect((await send(`${vars.SVC_TUNNEL_URL}/admin`)).status).toBe(200)
  expect(provisioned.stdout).toMatch(/^ {2}Gate: Off\b.*--protect/m)
  expect((await job.cli(['revoke'])).code).toBe(0)
})
