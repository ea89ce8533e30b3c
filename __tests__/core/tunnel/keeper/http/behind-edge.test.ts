/**
 * The gate, the URL proof and the request log behind an edge proxy that rewrites `Host`, as the
 * product's reference Caddy configuration does: the request reaches the tunnel with `Host` set to
 * an internal name (here the stand-in front's own name, which routes it), the public host in
 * `X-Forwarded-Host`, and `X-Forwarded-Proto`, `X-Forwarded-For` and `X-Real-Ip` added, in the
 * case Caddy writes them. Main's public URL is https at another name. Real sockets, the keeper
 * in-process.
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
import {
  GATE_COOKIE_NAME,
  GATE_COOKIE_SECURE_NAME,
  PROOF_PATH_PREFIX,
  proofAnswer,
  type KeeperConfig,
  type ProofRequest
} from '../../../../../src/core/tunnel/protocol.js'
import { readValidHar } from '../../request-log/records.js'

const SECRET = randomBytes(32).toString('base64url')
const PROOF_KEY = randomBytes(32).toString('hex')
/** The browser's address as Caddy saw it; the channel itself comes from the front's side. */
const PUBLIC_CLIENT = '203.0.113.9'
let app: TestApp
let dir: string
const tunnels: HttpTunnel[] = []

beforeAll(async () => (app = await startTestApp()))
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'behind-edge-'))
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

/** The public name main formed for entry `web`: not the name the request's `Host` carries. */
const publicHost = (user: string) => `web-${user}.cicd.tunnel.example`

interface EdgeTunnel {
  tunnel: HttpTunnel
  publicHost: string
  proofs: ProofRequest[]
}

/** Gate, proof and log on, with main's public URL for `web` at `scheme`://publicHost. */
async function start(scheme: 'https' | 'http' = 'https'): Promise<EdgeTunnel> {
  let proofs: ProofRequest[] = []
  let host = ''
  const tunnel = await startHttpTunnel(
    [{ name: 'web', host: '127.0.0.1', port: app.port }],
    'none',
    ({ user }): Partial<KeeperConfig> => {
      host = publicHost(user)
      proofs = [
        {
          entry: 'web',
          nonce: randomBytes(16).toString('hex'),
          host,
          defaultPort: scheme === 'https' ? 443 : 80
        }
      ]
      return {
        protect: true,
        gateSecret: SECRET,
        proofKey: PROOF_KEY,
        proofRequests: proofs,
        publicUrls: { web: `${scheme}://${host}` },
        requestLog: { enabled: true, bodyBytes: 0, headers: 'unredacted' },
        requestLogFiles: {
          harPath: join(dir, 'requests.har'),
          spoolPath: join(dir, 'requests.spool'),
          tallyPath: join(dir, 'requests.tally.json')
        }
      }
    }
  )
  tunnels.push(tunnel)
  return { tunnel, publicHost: host, proofs }
}

/** What Caddy sends the muxer for a browser's request: Host rewritten, the forwarded fields. */
function throughEdge(edge: EdgeTunnel, headers: string[] = [], forwardedHost = edge.publicHost) {
  return [
    `Host: ${edge.tunnel.hostFor('web')}`,
    ...headers,
    `X-Forwarded-For: ${PUBLIC_CLIENT}`,
    `X-Forwarded-Host: ${forwardedHost}`,
    'X-Forwarded-Proto: https',
    `X-Real-Ip: ${PUBLIC_CLIENT}`
  ]
}

async function send(edge: EdgeTunnel, target: string, fields: string[]): Promise<string> {
  const client = await openSocket(edge.tunnel.frontPort)
  client.socket.write(
    `GET ${target} HTTP/1.1\r\n${fields.join('\r\n')}\r\nConnection: close\r\n\r\n`
  )
  await client.closed
  return client.received().toString('utf8')
}

const basic = (password: string) =>
  `Authorization: Basic ${Buffer.from(`tunnel:${password}`).toString('base64')}`
const navigation = ['Sec-Fetch-Mode: navigate', 'Accept: text/html']

async function harAfterStop(edge: EdgeTunnel) {
  edge.tunnel.keeper.keeper.stop()
  await edge.tunnel.keeper.done
  return readValidHar(join(dir, 'requests.har'))
}

describe('behind an edge that rewrites Host', () => {
  it('answers main’s proof by X-Forwarded-Host, and not a relay’s at another public name', async () => {
    const edge = await start()
    const [proof] = edge.proofs
    const relayed = await send(
      edge,
      `${PROOF_PATH_PREFIX}${randomBytes(16).toString('hex')}`,
      throughEdge(edge, [], 'relay.example')
    )
    expect(relayed).toMatch(/^HTTP\/1\.1 401 /)
    const answer = await send(edge, `${PROOF_PATH_PREFIX}${proof.nonce}`, throughEdge(edge))
    expect(answer).toMatch(/^HTTP\/1\.1 200 /)
    expect(answer.endsWith(`\r\n\r\n${proofAnswer(PROOF_KEY, 'web', proof.nonce)}`)).toBe(true)
    expect(app.seen).toEqual([])
  })

  it('gives a browser the __Host- cookie for main’s https URL, and a redirect that names no host', async () => {
    const edge = await start()
    const page = await send(edge, '/app?x=1', throughEdge(edge, [basic(SECRET), ...navigation]))
    expect(page).toMatch(/^HTTP\/1\.1 200 /)
    const setCookie = /\r\nSet-Cookie: ([^\r]*)\r\n/i.exec(page)?.[1]
    expect(setCookie).toMatch(new RegExp(`^${GATE_COOKIE_SECURE_NAME}=[^;]+; Path=/;.*; Secure$`))

    const redirect = await send(
      edge,
      `/_tunnel-gate/${SECRET}/hooks?a=1`,
      throughEdge(edge, navigation)
    )
    expect(redirect).toMatch(/^HTTP\/1\.1 303 /)
    expect(/\r\nLocation: ([^\r]*)\r\n/i.exec(redirect)?.[1]).toBe('/hooks?a=1')

    const cookie = setCookie!.split(';')[0]
    const inside = await send(edge, '/app', throughEdge(edge, [`Cookie: ${cookie}; theme=dark`]))
    expect(inside).toMatch(/^HTTP\/1\.1 200 /)
    // The app gets the request as the edge sent it, without the gate's cookie.
    expect(app.seen).toHaveLength(1)
    expect(app.seen[0].host).toBe(edge.tunnel.hostFor('web'))
    expect(app.seen[0].headers!['x-forwarded-host']).toBe(edge.publicHost)
    expect(app.seen[0].headers!.cookie).toBe('theme=dark')
  })

  it('decides Secure by main’s URL, not by the X-Forwarded-Proto a request carries', async () => {
    const edge = await start('http')
    const page = await send(edge, '/', throughEdge(edge, [basic(SECRET), ...navigation]))
    const setCookie = /\r\nSet-Cookie: ([^\r]*)\r\n/i.exec(page)?.[1]
    expect(setCookie).toMatch(new RegExp(`^${GATE_COOKIE_NAME}=`))
    expect(setCookie).not.toContain('Secure')
  })

  it('logs main’s public URL, the edge-reported client and the channel originator', async () => {
    const edge = await start()
    await send(edge, `${PROOF_PATH_PREFIX}${edge.proofs[0].nonce}`, throughEdge(edge))
    await send(edge, '/refused', throughEdge(edge))
    await send(edge, '/in?q=1', throughEdge(edge, [`X-Tunnel-Gate: ${SECRET}`]))
    const har = await harAfterStop(edge)
    const all = [...har.log.entries, ...har.log._tunnelAnswers]
    expect(all.map(entry => [entry._tunnel, entry.request.url]).sort()).toEqual([
      ['forwarded', `https://${edge.publicHost}/in?q=1`],
      ['proof', `https://${edge.publicHost}${PROOF_PATH_PREFIX}${edge.proofs[0].nonce}`],
      ['refused', `https://${edge.publicHost}/refused`]
    ])
    for (const entry of all) {
      expect(entry._edgeReportedClient).toBe(PUBLIC_CLIENT)
      // The channel comes from the front (the edge's side), never from the public client.
      expect(entry._client).toMatch(/^127\.0\.0\.1:\d+$/)
    }
  })
})
