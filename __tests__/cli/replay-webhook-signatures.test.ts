/**
 * Webhook deliveries recorded through the real logging path (the keeper's HTTP layer, redaction
 * by default, log-bodies large enough) and sent again with `replay` to a receiver that verifies
 * their signatures as Stripe's and GitHub's libraries do: the signature headers the log keeps
 * and the body kept byte for byte make the replayed delivery verify. A request whose query
 * values were redacted is counted apart from OK.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { main } from '../../src/cli/index.js'
import { cleanUp } from '../helpers/ssh-stand-in.js'
import {
  openSocket,
  startHttpTunnel,
  startTestApp,
  type HttpTunnel,
  type TestApp
} from '../helpers/http-tunnel.js'

const STRIPE_SECRET = `whsec_${randomBytes(24).toString('hex')}`
const GITHUB_SECRET = randomBytes(20).toString('hex')
const hmac = (secret: string, text: string | Buffer) =>
  createHmac('sha256', secret).update(text).digest('hex')

let app: TestApp
let tunnel: HttpTunnel
let receiver: Server
let receiverUrl: string
let verified: { path: string; ok: boolean }[]
let dir: string

/** Verifies as the senders' libraries do: the signature over the raw body (and Stripe's time). */
function verify(request: IncomingMessage, body: Buffer): boolean {
  const same = (a: string, b: string) =>
    a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))
  const stripe = request.headers['stripe-signature']
  if (typeof stripe === 'string') {
    const parts = Object.fromEntries(stripe.split(',').map(part => part.split('=')))
    return same(parts.v1 ?? '', hmac(STRIPE_SECRET, `${parts.t}.${body.toString('utf8')}`))
  }
  const github = request.headers['x-hub-signature-256']
  if (typeof github === 'string') return same(github, `sha256=${hmac(GITHUB_SECRET, body)}`)
  return false
}

beforeAll(async () => {
  app = await startTestApp()
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const ok = verify(request, Buffer.concat(chunks))
      verified.push({ path: request.url ?? '', ok })
      response.statusCode = ok ? 200 : 400
      response.end()
    })
  })
  await new Promise<void>(resolve => receiver.listen(0, '127.0.0.1', resolve))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
})
beforeEach(() => {
  verified = []
  dir = mkdtempSync(join(tmpdir(), 'replay-signatures-'))
})
afterEach(async () => {
  await cleanUp()
  await tunnel?.service.close()
  rmSync(dir, { recursive: true, force: true })
})
afterAll(async () => {
  await app.close()
  receiver.closeAllConnections()
  await new Promise(resolve => receiver.close(resolve))
})

async function deliver(target: string, headers: [string, string][], body: string) {
  const client = await openSocket(tunnel.frontPort)
  const lines = [
    `POST ${target} HTTP/1.1`,
    `Host: ${tunnel.hostFor('web')}`,
    ...headers.map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close'
  ]
  client.socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`)
  await client.closed
  expect(client.received().toString('latin1')).toMatch(/^HTTP\/1\.1 200 /)
}

function stripeDelivery(): [[string, string][], string] {
  const body = JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded', amount: 4200 })
  const time = String(Math.floor(Date.now() / 1000))
  return [
    [
      ['User-Agent', 'Stripe/1.0 (+https://stripe.com/docs/webhooks)'],
      ['Content-Type', 'application/json; charset=utf-8'],
      ['Stripe-Signature', `t=${time},v1=${hmac(STRIPE_SECRET, `${time}.${body}`)}`]
    ],
    body
  ]
}

function githubDelivery(): [[string, string][], string] {
  const body = JSON.stringify({ ref: 'refs/heads/main', commits: [{ id: 'abc', message: 'ü' }] })
  return [
    [
      ['User-Agent', 'GitHub-Hookshot/abc1234'],
      ['X-GitHub-Event', 'push'],
      ['X-GitHub-Delivery', '72d3162e-cc78-11e3-81ab-4c9367dc0958'],
      ['Content-Type', 'application/json'],
      ['X-Hub-Signature', `sha1=${createHmac('sha1', GITHUB_SECRET).update(body).digest('hex')}`],
      ['X-Hub-Signature-256', `sha256=${hmac(GITHUB_SECRET, body)}`]
    ],
    body
  ]
}

async function recordAndReplay(
  deliveries: [string, [[string, string][], string]][]
): Promise<{ code: number; lines: string[] }> {
  const harPath = join(dir, 'requests.har')
  tunnel = await startHttpTunnel([{ name: 'web', host: '127.0.0.1', port: app.port }], 'none', {
    requestLog: { enabled: true, bodyBytes: 65_536, headers: 'redacted' },
    requestLogFiles: {
      harPath,
      spoolPath: join(dir, 'requests.spool'),
      tallyPath: join(dir, 'requests.tally.json')
    }
  })
  for (const [target, [headers, body]] of deliveries) await deliver(target, headers, body)
  tunnel.keeper.keeper.stop()
  await tunnel.keeper.done
  const lines: string[] = []
  const terminal = { stdout: (l: string) => lines.push(l), stderr: (l: string) => lines.push(l) }
  const code = await main(['replay', harPath, '--to', receiverUrl], {}, terminal)
  return { code, lines }
}

it('a replayed Stripe and GitHub delivery still verifies', async () => {
  const ran = await recordAndReplay([
    ['/hooks/stripe', stripeDelivery()],
    ['/hooks/github', githubDelivery()]
  ])
  expect(verified).toEqual([
    { path: '/hooks/stripe', ok: true },
    { path: '/hooks/github', ok: true }
  ])
  expect(ran.code).toBe(0)
  expect(ran.lines).toContain(
    'Replayed 2: 2 OK, 0 sent redacted, 0 DIFF; 0 not replayed; 0 skipped (never reached the app).'
  )
})

it('a delivery whose query values were redacted is counted apart from OK', async () => {
  const ran = await recordAndReplay([
    ['/hooks/stripe?attempt=1', stripeDelivery()],
    ['/hooks/github', githubDelivery()]
  ])
  expect(verified.map(request => request.path)).toEqual(['/hooks/stripe', '/hooks/github'])
  expect(ran.lines.find(line => line.startsWith('#1 '))).toBe(
    '#1 POST /hooks/stripe?attempt=REDACTED  200 -> 200  SENT REDACTED  (not sent, redacted: query attempt)'
  )
  expect(ran.lines).toContain(
    'Replayed 2: 1 OK, 1 sent redacted, 0 DIFF; 0 not replayed; 0 skipped (never reached the app).'
  )
  expect(ran.code).toBe(0)
})
