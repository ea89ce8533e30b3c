/**
 * The keeper's side of the URL proof, as main, a public client and a relay see it through the
 * stand-in's front: only the nonces main handed over are answered, once each, only while main
 * proves, and only at the host main asked. Anything else on the proof path is an ordinary
 * request: the gate's or the app's. Real sockets, the keeper in-process.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
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
import { reachedHost } from '../../../../../src/core/tunnel/keeper/http/proof-answer.js'
import {
  PROOF_NONCES_KEPT_MS,
  PROOF_PATH_PREFIX,
  proofAnswer,
  type KeeperConfig,
  type ProofRequest
} from '../../../../../src/core/tunnel/protocol.js'

const PROOF_KEY = randomBytes(32).toString('hex')
const SECRET = randomBytes(32).toString('base64url')
let app: TestApp
let dir: string
const tunnels: HttpTunnel[] = []
/** Added to the keeper's clock: moves it past the nonces' time limit. */
let later = 0

beforeAll(async () => (app = await startTestApp()))
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'proof-answer-'))
  app.seen.length = 0
  later = 0
})
afterEach(async () => {
  await cleanUp()
  rmSync(dir, { recursive: true, force: true })
})
afterAll(async () => {
  await app.close()
  for (const tunnel of tunnels) await tunnel.service.close()
})

/** Main's requests for entry `web`, as planProof makes them for `http://web-USER.localhost:PORT`. */
let mainsRequests: ProofRequest[] = []

/** A keeper that proves with main's requests; `extra`: the gate, the log. */
async function start(extra: Partial<KeeperConfig> = {}): Promise<HttpTunnel> {
  const tunnel = await startHttpTunnel(
    [{ name: 'web', host: '127.0.0.1', port: app.port }],
    'none',
    ({ user, frontPort }) => {
      mainsRequests = Array.from({ length: 3 }, () => ({
        entry: 'web',
        nonce: randomBytes(16).toString('hex'),
        host: `web-${user}.localhost:${frontPort}`,
        defaultPort: 80
      }))
      return { proofKey: PROOF_KEY, proofRequests: mainsRequests, ...extra }
    },
    { now: () => Date.now() + later }
  )
  tunnels.push(tunnel)
  return tunnel
}

/** The request log on: every connection stays in the HTTP layer, with no gate before the app. */
const logged = (): Partial<KeeperConfig> => ({
  requestLog: { enabled: true, bodyBytes: 0, headers: 'redacted' },
  requestLogFiles: {
    harPath: join(dir, 'requests.har'),
    spoolPath: join(dir, 'requests.spool'),
    tallyPath: join(dir, 'requests.tally.json')
  }
})

/** One GET on a new connection, routed by the front to `web`; `host` replaces Host's port part. */
async function send(
  tunnel: HttpTunnel,
  target: string,
  headers: string[] = [],
  host = tunnel.hostFor('web')
): Promise<{ status: number; body: string }> {
  const client = await openSocket(tunnel.frontPort)
  const lines = [`GET ${target} HTTP/1.1`, `Host: ${host}`, ...headers, 'Connection: close']
  client.socket.write(`${lines.join('\r\n')}\r\n\r\n`)
  await client.closed
  const text = client.received().toString('utf8')
  return {
    status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1] ?? 0),
    body: text.slice(text.indexOf('\r\n\r\n') + 4)
  }
}

const keyed = (nonce: string) => proofAnswer(PROOF_KEY, 'web', nonce)
const proofPath = (nonce: string) => `${PROOF_PATH_PREFIX}${nonce}`
const seenUrls = () => app.seen.map(seen => seen.url)

describe("main's proof requests", () => {
  it('are answered once each, with the keyed answer; a replay of the nonce reaches the app', async () => {
    const tunnel = await start(logged())
    const [first, second] = mainsRequests
    expect(await send(tunnel, proofPath(first.nonce))).toEqual({
      status: 200,
      body: keyed(first.nonce)
    })
    // A url-template may put a path before the proof's.
    expect((await send(tunnel, `/base${proofPath(second.nonce)}`)).body).toBe(keyed(second.nonce))
    expect(seenUrls()).toEqual([])
    const replay = await send(tunnel, proofPath(first.nonce))
    expect(replay.status).toBe(200)
    expect(replay.body).not.toContain(keyed(first.nonce))
    expect(seenUrls()).toEqual([proofPath(first.nonce)])
  })

  it("are answered before the gate, and a replay then meets the gate's 401", async () => {
    const tunnel = await start({ protect: true, gateSecret: SECRET })
    const [first] = mainsRequests
    expect((await send(tunnel, proofPath(first.nonce))).body).toBe(keyed(first.nonce))
    expect((await send(tunnel, proofPath(first.nonce))).status).toBe(401)
    expect(seenUrls()).toEqual([])
  })

  it('that reached another host are not answered, and their nonce is spent', async () => {
    const tunnel = await start(logged())
    const [relayed, forwardedElsewhere, forwardedHere] = mainsRequests
    // What a relay at another URL sends on: the front routes it (it ignores the port), but
    // the host is not the one main asked.
    const elsewhere = tunnel.hostFor('web').replace(/:\d+$/, ':1')
    const answer = await send(tunnel, proofPath(relayed.nonce), [], elsewhere)
    expect(answer.status).toBe(200)
    expect(answer.body).not.toContain(keyed(relayed.nonce))
    // Spent: not answered even at the right host afterwards.
    expect((await send(tunnel, proofPath(relayed.nonce))).body).not.toContain(keyed(relayed.nonce))
    // X-Forwarded-Host, where an edge sets it, is the host the request reached.
    const other = `X-Forwarded-Host: web.attacker.example`
    expect((await send(tunnel, proofPath(forwardedElsewhere.nonce), [other])).body).not.toContain(
      keyed(forwardedElsewhere.nonce)
    )
    const here = `X-Forwarded-Host: ${tunnel.hostFor('web').toUpperCase()}`
    expect((await send(tunnel, proofPath(forwardedHere.nonce), [here], elsewhere)).body).toBe(
      keyed(forwardedHere.nonce)
    )
    expect(seenUrls()).toEqual([
      proofPath(relayed.nonce),
      proofPath(relayed.nonce),
      proofPath(forwardedElsewhere.nonce)
    ])
  })

  it('are not answered once main said the proof is over', async () => {
    const tunnel = await start(logged())
    tunnel.keeper.keeper.proofOver()
    const [first] = mainsRequests
    expect((await send(tunnel, proofPath(first.nonce))).body).not.toContain(keyed(first.nonce))
    expect(seenUrls()).toEqual([proofPath(first.nonce)])
  })

  it('are not answered once their time after ready is over, even if main never said so', async () => {
    const tunnel = await start(logged())
    later = PROOF_NONCES_KEPT_MS
    const [first] = mainsRequests
    expect((await send(tunnel, proofPath(first.nonce))).body).not.toContain(keyed(first.nonce))
    expect(seenUrls()).toEqual([proofPath(first.nonce)])
  })
})

describe('a public client on the proof path', () => {
  it("with a nonce of its own gets the app's answer, not a keyed one", async () => {
    const tunnel = await start(logged())
    const own = randomBytes(16).toString('hex')
    const answer = await send(tunnel, proofPath(own))
    expect(answer.status).toBe(200)
    expect(answer.body).not.toContain(keyed(own))
    expect(seenUrls()).toEqual([proofPath(own)])
  })

  it("with a nonce of its own gets the gate's 401 with the gate on; the app sees nothing", async () => {
    const tunnel = await start({ protect: true, gateSecret: SECRET })
    expect((await send(tunnel, proofPath(randomBytes(16).toString('hex')))).status).toBe(401)
    expect((await send(tunnel, proofPath('not-hex'))).status).toBe(401)
    expect(seenUrls()).toEqual([])
  })
})

describe('with the proof alone (no log, no gate)', () => {
  it('an entry takes the raw path once its proof was answered', async () => {
    const tunnel = await start({
      requestLog: { enabled: false, bodyBytes: 0, headers: 'redacted' }
    })
    expect((await send(tunnel, '/before')).status).toBe(200)
    const [first, second] = mainsRequests
    expect((await send(tunnel, proofPath(first.nonce))).body).toBe(keyed(first.nonce))
    expect(seenUrls()).toEqual(['/before'])
    // Piped raw from now on: nothing reads the requests, so the proof path reaches the app.
    await send(tunnel, proofPath(second.nonce))
    expect(seenUrls()).toEqual(['/before', proofPath(second.nonce)])
  })
})

describe('reachedHost', () => {
  const asked = (host: string, defaultPort = 443): ProofRequest => ({
    entry: 'web',
    nonce: '00',
    host,
    defaultPort
  })
  const hostIs = (value: string): [string, string][] => [['Host', value]]

  it('compares names without case or a trailing dot, and a port the scheme implies either way', () => {
    expect(reachedHost(hostIs('Web.Example.COM'), asked('web.example.com'))).toBe(true)
    expect(reachedHost(hostIs('web.example.com.'), asked('web.example.com'))).toBe(true)
    expect(reachedHost(hostIs('web.example.com:443'), asked('web.example.com'))).toBe(true)
    expect(reachedHost(hostIs('web.example.com:80'), asked('web.example.com'))).toBe(false)
    expect(reachedHost(hostIs('web.example.com'), asked('web.example.com', 80))).toBe(true)
    expect(reachedHost(hostIs('web.example.com'), asked('web.example.com:8443'))).toBe(false)
    expect(reachedHost(hostIs('web.example.com:8443'), asked('web.example.com:8443'))).toBe(true)
    expect(reachedHost(hostIs('[::1]:8080'), asked('[::1]:8080', 80))).toBe(true)
    expect(reachedHost(hostIs('other.example.com'), asked('web.example.com'))).toBe(false)
    expect(reachedHost([], asked('web.example.com'))).toBe(false)
  })

  it('takes X-Forwarded-Host over Host, and its last value: the one the nearest edge added', () => {
    const headers = (forwarded: string): [string, string][] => [
      ['Host', 'internal:8080'],
      ['X-Forwarded-Host', forwarded]
    ]
    expect(reachedHost(headers('web.example.com'), asked('web.example.com'))).toBe(true)
    expect(reachedHost(headers('internal:8080'), asked('internal:8080'))).toBe(true)
    // A client's own value, with the edge's appended after it.
    expect(
      reachedHost(headers('web.example.com, relay.example.net'), asked('web.example.com'))
    ).toBe(false)
    expect(
      reachedHost(headers('relay.example.net, web.example.com'), asked('web.example.com'))
    ).toBe(true)
  })
})
