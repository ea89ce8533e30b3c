/**
 * Issue 27, point 5: the edge keeps its connections to the muxer open and reuses them for
 * requests to different tunnels, so the front must route each request, not each connection.
 * Caddy (Debian's, as the reference deployment runs it) sits in front of the stand-in's front,
 * with a counting relay between them: requests for two tunnels, alternated, each reach their own
 * app, while the edge sends them over fewer connections than there are requests.
 */
import { readFileSync } from 'node:fs'
import { request as httpsRequest } from 'node:https'
import { connect, createServer, type AddressInfo, type Server } from 'node:net'
import { startEdge, type RunningEdge } from '../edge/caddy.js'
import { startCredentialService, type RunningService } from '../server.js'
import {
  forward,
  login,
  provision,
  serveWith,
  startNamedApp,
  type NamedApp
} from './helpers/tunnel-client.js'

let service: RunningService
let edge: RunningEdge
let relay: Server
let upstreamConnections = 0
let apps: NamedApp[]
const labels: string[] = []

beforeAll(async () => {
  service = await startCredentialService({ tunnel: true })
  // Counts the edge's connections to the front, and passes their bytes unchanged.
  relay = createServer(incoming => {
    upstreamConnections += 1
    const front = connect(service.tunnel!.frontPort, '127.0.0.1')
    incoming.pipe(front).pipe(incoming)
    incoming.on('error', () => front.destroy())
    front.on('error', () => incoming.destroy())
  })
  await new Promise<void>(resolve => relay.listen(0, '127.0.0.1', resolve))
  edge = await startEdge({ upstreamPort: (relay.address() as AddressInfo).port })
  apps = [await startNamedApp('app A'), await startNamedApp('app B')]
  for (const app of apps) {
    const credential = await provision(service)
    const client = await login(service, credential)
    serveWith(client, app.port)
    await forward(client, 'web')
    labels.push(`web-${credential.user}`)
  }
}, 60_000)

afterAll(async () => {
  await edge?.stop()
  await new Promise(resolve => relay?.close(resolve))
  await Promise.all((apps ?? []).map(app => app.close()))
  await service?.close()
})

/** One GET over a fresh client connection to the edge, trusting only the edge's CA. */
function getThroughEdge(label: string, path: string): Promise<string> {
  const host = `${label}.${edge.publicDomain}`
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port: edge.port,
        servername: host,
        path,
        ca: readFileSync(edge.caFile, 'utf8'),
        agent: false,
        headers: { host: `${host}:${edge.port}` }
      },
      res => {
        let body = ''
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve(`${res.statusCode} ${body}`))
      }
    )
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')))
    req.on('error', reject)
    req.end()
  })
}

it('routes each request of a kept-alive edge connection to its own tunnel', async () => {
  const answers: string[] = []
  const expected: string[] = []
  for (let round = 0; round < 6; round += 1) {
    for (const [index, label] of labels.entries()) {
      answers.push(await getThroughEdge(label, `/r${round}`))
      expected.push(`200 ${index === 0 ? 'app A' : 'app B'}: GET /r${round}`)
    }
  }
  expect(answers).toEqual(expected)
  expect(apps[0].seen).toHaveLength(6)
  expect(apps[1].seen).toHaveLength(6)
  // The edge reused its connections to the front across both tunnels: the case that a front
  // routing whole connections gets wrong.
  expect(upstreamConnections).toBeGreaterThan(0)
  expect(upstreamConnections).toBeLessThan(answers.length / 2)
}, 60_000)
