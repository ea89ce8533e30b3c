/**
 * The tunnel's own answers in the request log, as a client and a HAR consumer meet them: the
 * gate's refusals (and the proof's exchanges, gate-proof.test.ts) are recorded as they were sent (fields, sizes,
 * bodies as log-bodies allows) in `log._tunnelAnswers`, never in `log.entries`, which keeps the
 * app's answers (and a 502 for an app that is down: that is what the client got). A 401 that a
 * client answers with the secret is counted as a challenge, not a refusal. Real sockets, the
 * keeper in-process, through the stand-in's front.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cleanUp } from '../../../helpers/ssh-stand-in.js'
import {
  openSocket,
  startHttpTunnel,
  startTestApp,
  type HttpTunnel,
  type TestApp
} from '../../../helpers/http-tunnel.js'
import type { KeeperConfig } from '../../../../src/core/tunnel/protocol.js'
import { readTally } from '../../../../src/core/tunnel/request-log/tally.js'
import {
  requestCountsLine,
  requestSummary
} from '../../../../src/core/tunnel/request-log/summary.js'
import { readValidHar } from '../request-log/records.js'
import { main } from '../../../../src/cli/index.js'

const SECRET = randomBytes(32).toString('base64url')
let app: TestApp
let dir: string
let downPort: number
const tunnels: HttpTunnel[] = []

beforeAll(async () => {
  app = await startTestApp()
  // A port nothing listens on: the entry whose app is down.
  const probe = createServer()
  await new Promise<void>(resolve => probe.listen(0, '127.0.0.1', resolve))
  downPort = (probe.address() as AddressInfo).port
  await new Promise(resolve => probe.close(resolve))
})
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tunnel-answers-'))
  app.seen.length = 0
})
afterEach(async () => {
  await cleanUp()
  rmSync(dir, { recursive: true, force: true })
})
afterAll(async () => {
  await app.close()
  for (const tunnel of tunnels) await tunnel.service.close()
})

const files = () => ({
  harPath: join(dir, 'requests.har'),
  spoolPath: join(dir, 'requests.spool'),
  tallyPath: join(dir, 'requests.tally.json')
})

async function start(config: Partial<KeeperConfig> = {}): Promise<HttpTunnel> {
  const tunnel = await startHttpTunnel(
    [
      { name: 'web', host: '127.0.0.1', port: app.port },
      { name: 'down', host: '127.0.0.1', port: downPort }
    ],
    'none',
    {
      protect: true,
      gateSecret: SECRET,
      requestLog: { enabled: true, bodyBytes: 4096, headers: 'redacted' },
      requestLogFiles: files(),
      ...config
    }
  )
  tunnels.push(tunnel)
  return tunnel
}

/** One request on a new connection; the bytes the client got once it closed. */
async function send(
  tunnel: HttpTunnel,
  request: { method?: string; target: string; entry?: string; headers?: string[]; body?: Buffer }
): Promise<Buffer> {
  const client = await openSocket(tunnel.frontPort)
  const body = request.body ?? Buffer.alloc(0)
  const lines = [
    `${request.method ?? 'GET'} ${request.target} HTTP/1.1`,
    `Host: ${tunnel.hostFor(request.entry ?? 'web')}`,
    ...(request.headers ?? []),
    ...(body.length > 0 ? [`Content-Length: ${body.length}`] : []),
    'Connection: close'
  ]
  client.socket.write(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]))
  await client.closed
  return client.received()
}

const basic = `Authorization: Basic ${Buffer.from(`tunnel:${SECRET}`).toString('base64')}`

/** The head's fields and the body of an answer as the client got it. */
function parsed(answer: Buffer): { fields: [string, string][]; body: Buffer } {
  const end = answer.indexOf('\r\n\r\n')
  const fields = answer
    .subarray(0, end)
    .toString('latin1')
    .split('\r\n')
    .slice(1)
    .map(line => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()])
  return { fields: fields as [string, string][], body: answer.subarray(end + 4) }
}

async function stopped(tunnel: HttpTunnel) {
  tunnel.keeper.keeper.stop()
  return tunnel.keeper.done
}

describe("the tunnel's own answers in the HAR", () => {
  it('are kept out of log.entries and recorded as sent: fields, sizes, the body, the refused POST body size', async () => {
    const tunnel = await start()
    const posted = Buffer.alloc(177, 'p')
    const refusal = await send(tunnel, { method: 'POST', target: '/form', body: posted })
    expect(refusal.toString('latin1')).toMatch(/^HTTP\/1\.1 401 /)
    const sent = parsed(refusal)
    await send(tunnel, { target: '/other' })
    await send(tunnel, { target: '/page', headers: [basic] })
    await stopped(tunnel)

    const har = await readValidHar(files().harPath)
    expect(har.log.entries.map(entry => new URL(entry.request.url).pathname)).toEqual(['/page'])
    const answers = har.log._tunnelAnswers
    expect(answers.map(entry => entry._tunnel)).toEqual(['refused', 'refused'])
    const [refused] = answers
    expect(refused.response.status).toBe(401)
    // What the client got, field for field, and its body byte for byte.
    expect(refused.response.headers.map(({ name, value }) => [name, value])).toEqual(sent.fields)
    expect(refused.response.headers.map(header => header.name)).toContain('WWW-Authenticate')
    expect(refused.response.content.size).toBe(sent.body.length)
    expect(refused.response.bodySize).toBe(sent.body.length)
    expect(refused.response.content.text).toBe(sent.body.toString('utf8'))
    // The keeper never read the refused body: its size is what the client declared.
    expect(refused.request.bodySize).toBe(177)
    expect(readFileSync(files().harPath, 'utf8')).not.toContain(SECRET)
  })

  it('a 502 for an app that is down stays in log.entries: it is what the client got', async () => {
    const tunnel = await start()
    const answer = await send(tunnel, {
      entry: 'down',
      target: '/x',
      headers: [`X-Tunnel-Gate: ${SECRET}`]
    })
    expect(answer.toString('latin1')).toMatch(/^HTTP\/1\.1 502 /)
    await stopped(tunnel)
    const har = await readValidHar(files().harPath)
    expect(har.log.entries.map(entry => [entry._tunnel, entry.response.status])).toEqual([
      ['unreachable', 502]
    ])
    expect(har.log._tunnelAnswers).toEqual([])
    // Recorded as sent too: the page's type and length.
    expect(har.log.entries[0].response.headers.map(header => header.name)).toContain('Content-Type')
  })

  it("a consumer that serves a URL's recorded answer gets the app's page, not the gate's 401", async () => {
    const tunnel = await start()
    // A browser: the first request carries no credentials, the second does.
    await send(tunnel, { target: '/' })
    await send(tunnel, { target: '/', headers: [basic] })
    await stopped(tunnel)
    const har = await readValidHar(files().harPath)
    const forRoot = har.log.entries.filter(entry => new URL(entry.request.url).pathname === '/')
    expect(forRoot.map(entry => entry.response.status)).toEqual([200])
  })

  it('replay reads both lists, in order, and still shows the refusal it skips', async () => {
    const tunnel = await start()
    await send(tunnel, { target: '/first' })
    await send(tunnel, { target: '/second', headers: [basic] })
    await stopped(tunnel)
    const lines: string[] = []
    const terminal = { stdout: (l: string) => lines.push(l), stderr: (l: string) => lines.push(l) }
    const code = await main(
      ['replay', files().harPath, '--to', `http://127.0.0.1:${app.port}`],
      {},
      terminal
    )
    expect(code).toBe(0)
    expect(lines.filter(line => line.startsWith('#'))).toEqual([
      expect.stringMatching(/^#1 GET \/first {2}skipped: refused by the tunnel's gate/),
      expect.stringMatching(/^#2 GET \/second {2}200 -> 200 {2}OK$/)
    ])
    expect(lines).toContain(
      'Replayed 1: 1 OK, 0 sent redacted, 0 DIFF; 0 not replayed; 1 skipped (never reached the app).'
    )
  })
})

describe('a challenge is not a failure', () => {
  it('a 401 answered with the secret within 10 s is counted as challenged, apart from a refusal', async () => {
    const tunnel = await start()
    await send(tunnel, { target: '/app.js' })
    await send(tunnel, { target: '/app.js', headers: [basic] })
    await send(tunnel, { target: '/lonely' })
    await stopped(tunnel)
    const tally = readTally(files().tallyPath)!
    expect(tally.byClass).toEqual({ '2xx': 1, refused: 1, challenged: 1 })
    expect(requestCountsLine(tally, 'requests.har')).toBe(
      'Requests: 3 (2xx 1, refused 1, challenged 1); log: requests.har'
    )
    // Failures first: the refusal alone; the challenge with the others, said as such.
    const summary = requestSummary(tally, 'requests.har')
    const path = summary.columns.indexOf('Path')
    const what = summary.columns.indexOf('Tunnel')
    expect(summary.rows.map(row => [row[path], row[what]])).toEqual([
      ['/lonely', 'refused by the gate'],
      ['/app.js', 'challenged by the gate, then admitted'],
      ['/app.js', 'forwarded']
    ])
  })
})
