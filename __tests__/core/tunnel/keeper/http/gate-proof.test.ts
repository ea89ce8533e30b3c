/**
 * The keeper's own hooks, built from its configuration: the gate (protect) and the URL proof, as
 * a client and the app see them through the stand-in's front, and what the request log (HAR)
 * keeps of them. Real sockets, the keeper in-process.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cleanUp } from '../../../../helpers/ssh-stand-in.js'
import {
  openSocket,
  startHttpTunnel,
  startTestApp,
  type HttpTunnel,
  type TestApp
} from '../../../../helpers/http-tunnel.js'
import { PROOF_PATH_PREFIX, type KeeperConfig } from '../../../../../src/core/tunnel/protocol.js'
import { readValidHar } from '../../request-log/records.js'

const SECRET = randomBytes(32).toString('base64url')
const PROOF_KEY = randomBytes(32).toString('hex')
let app: TestApp
let dir: string
const tunnels: HttpTunnel[] = []

beforeAll(async () => (app = await startTestApp()))
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gate-proof-'))
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

function logFiles(): Partial<KeeperConfig> {
  return {
    requestLog: { enabled: true, bodyBytes: 0, headers: 'unredacted' },
    requestLogFiles: {
      harPath: join(dir, 'requests.har'),
      spoolPath: join(dir, 'requests.spool'),
      tallyPath: join(dir, 'requests.tally.json')
    }
  }
}

async function start(config: Partial<KeeperConfig>): Promise<HttpTunnel> {
  const tunnel = await startHttpTunnel(
    [{ name: 'web', host: '127.0.0.1', port: app.port }],
    'none',
    config
  )
  tunnels.push(tunnel)
  return tunnel
}

const gated = (): Partial<KeeperConfig> => ({ protect: true, gateSecret: SECRET, ...logFiles() })

/** One request (HOST: the entry's host) on a new connection; its answer once it closes. */
async function send(tunnel: HttpTunnel, target: string, headers: string[] = []): Promise<string> {
  const client = await openSocket(tunnel.frontPort)
  const lines = [`GET ${target} HTTP/1.1`, `Host: ${tunnel.hostFor('web')}`, ...headers]
  client.socket.write(`${lines.join('\r\n')}\r\nConnection: close\r\n\r\n`)
  await client.closed
  return client.received().toString('utf8')
}

const basic = (user: string, password: string) =>
  `Authorization: Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

async function stopped(tunnel: HttpTunnel) {
  tunnel.keeper.keeper.stop()
  return tunnel.keeper.done
}

describe('the gate', () => {
  it('answers 401 with WWW-Authenticate to a request without the secret; the app sees nothing', async () => {
    const tunnel = await start(gated())
    const answer = await send(tunnel, '/private')
    expect(answer).toMatch(/^HTTP\/1\.1 401 /)
    expect(answer).toMatch(/\r\nWWW-Authenticate: Basic realm="[^"]+", charset="UTF-8"\r\n/i)
    expect(answer).not.toContain(SECRET)
    expect(app.seen).toEqual([])
  })

  it('refuses a wrong secret in every form', async () => {
    const tunnel = await start(gated())
    const wrong = randomBytes(32).toString('base64url')
    for (const answer of [
      await send(tunnel, '/x', [basic('tunnel', wrong)]),
      await send(tunnel, '/x', [`X-Tunnel-Gate: ${wrong}`]),
      await send(tunnel, `/_tunnel-gate/${wrong}/x`),
      await send(tunnel, `/_tunnel-gate/${SECRET.slice(0, -1)}/x`),
      await send(tunnel, `/x`, [basic(SECRET, 'password')])
    ]) {
      expect(answer).toMatch(/^HTTP\/1\.1 401 /)
    }
    expect(app.seen).toEqual([])
  })

  it('lets Basic credentials with any user through, without them', async () => {
    const tunnel = await start(gated())
    expect(await send(tunnel, '/page?a=1', [basic('tunnel', SECRET)])).toMatch(/^HTTP\/1\.1 200 /)
    expect(await send(tunnel, '/other', [basic('someone', SECRET)])).toMatch(/^HTTP\/1\.1 200 /)
    expect(app.seen.map(seen => seen.url)).toEqual(['/page?a=1', '/other'])
    for (const seen of app.seen) expect(seen.headers!.authorization).toBeUndefined()
  })

  it('lets X-Tunnel-Gate through, without it, and keeps the app its own Authorization', async () => {
    const tunnel = await start(gated())
    const answer = await send(tunnel, '/api', [
      `X-Tunnel-Gate: ${SECRET}`,
      'Authorization: Bearer app-token'
    ])
    expect(answer).toMatch(/^HTTP\/1\.1 200 /)
    expect(app.seen).toHaveLength(1)
    expect(app.seen[0].headers!['x-tunnel-gate']).toBeUndefined()
    expect(app.seen[0].headers!.authorization).toBe('Bearer app-token')
  })

  it('lets the secret path prefix through, stripped: the app sees the path it would without it', async () => {
    const tunnel = await start(gated())
    expect(await send(tunnel, `/_tunnel-gate/${SECRET}/hooks/stripe?x=1`)).toMatch(
      /^HTTP\/1\.1 200 /
    )
    expect(await send(tunnel, `/_tunnel-gate/${SECRET}`)).toMatch(/^HTTP\/1\.1 200 /)
    expect(app.seen.map(seen => seen.url)).toEqual(['/hooks/stripe?x=1', '/'])
  })

  it('closes bytes that are not HTTP, records them refused, and never writes the secret in the HAR', async () => {
    const tunnel = await start(gated())
    await send(tunnel, '/no', [`X-Other: ${SECRET}`])
    await send(tunnel, `/_tunnel-gate/${SECRET}/yes`, [
      basic('tunnel', SECRET),
      `X-Tunnel-Gate: ${SECRET}`
    ])
    const raw = await openSocket(await tunnel.service.tunnel!.rawPort('web', tunnel.user))
    raw.socket.write(Buffer.from([0x16, 0x03, 0x01, 0x00, 0xff, 0x0d, 0x0a, 0x00]))
    await raw.closed
    expect(raw.received()).toHaveLength(0)
    expect(app.seen.map(seen => seen.url)).toEqual(['/yes'])
    await stopped(tunnel)
    const har = await readValidHar(join(dir, 'requests.har'))
    // The gate's refusals are the tunnel's own answers: kept apart from the app's entries.
    expect(har.log.entries.map(entry => entry._tunnel)).toEqual(['forwarded'])
    expect(har.log._tunnelAnswers.map(entry => entry._tunnel)).toEqual(['refused', 'refused'])
    const text = readFileSync(join(dir, 'requests.har'), 'utf8')
    expect(text).not.toContain(SECRET)
    expect(text).not.toContain(Buffer.from(`tunnel:${SECRET}`).toString('base64'))
  })
})

describe('the URL proof', () => {
  // Main's own requests are answered only when main hands them over: proof-answer.test.ts.
  it('is not answered when the proof is off: the path reaches the app', async () => {
    const tunnel = await start({ proofKey: PROOF_KEY, proveUrl: false })
    const target = `${PROOF_PATH_PREFIX}${randomBytes(16).toString('hex')}`
    await send(tunnel, target)
    expect(app.seen.map(seen => seen.url)).toEqual([target])
  })
})

describe('the request log', () => {
  it('writes a valid HAR with the requests sent, and the tally, by the time the keeper has stopped', async () => {
    const tunnel = await start(logFiles())
    await send(tunnel, '/one?q=2')
    await send(tunnel, '/two')
    const stats = await stopped(tunnel)
    expect(stats.state).toBe('stopped')
    const har = await readValidHar(join(dir, 'requests.har'))
    expect(har.log.entries.map(entry => [entry.request.method, entry.response.status])).toEqual([
      ['GET', 200],
      ['GET', 200]
    ])
    expect(har.log.entries.map(entry => new URL(entry.request.url).pathname)).toEqual([
      '/one',
      '/two'
    ])
    const tally = JSON.parse(readFileSync(join(dir, 'requests.tally.json'), 'utf8'))
    expect(JSON.stringify(tally)).toContain('/two')
    // The spool is the keeper's working file: gone at the end.
    expect(() => readFileSync(join(dir, 'requests.spool'))).toThrow()
  })

  it('exists, valid and empty, as soon as the keeper is ready', async () => {
    await start(logFiles())
    const har = await readValidHar(join(dir, 'requests.har'))
    expect(har.log.entries).toEqual([])
  })

  it('that cannot be written does not stop the tunnel, and is said once in its log', async () => {
    const missing = join(dir, 'missing', 'requests.har')
    const tunnel = await start({
      ...logFiles(),
      requestLogFiles: { ...logFiles().requestLogFiles!, harPath: missing }
    })
    expect(await send(tunnel, '/still')).toMatch(/^HTTP\/1\.1 200 /)
    expect(await send(tunnel, '/served')).toMatch(/^HTTP\/1\.1 200 /)
    await stopped(tunnel)
    const lines = tunnel.keeper
      .log()
      .split('\n')
      .filter(line => line.includes(missing))
    expect(lines).toHaveLength(1)
  })
})
