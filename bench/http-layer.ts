/**
 * What the tunnel process's HTTP layer costs against the raw pipe, and how it compares with
 * Node's own http server as the layer (the design choice in docs/performance.md):
 * - through the tunnel: the keeper in this process against the stand-in, without hooks (raw
 *   pipe) and with a recording hook (HTTP layer), same app, same front;
 * - the layer alone: TCP proxies between a client and the app, each on loopback: a raw pipe,
 *   this project's streaming reader (HttpConnection), and http.createServer + http.request with
 *   a keep-alive Agent.
 * Figures: median and p99 of small GETs, each on a new connection; MB/s of a 50 MiB download.
 * Run: `npx tsx bench/http-layer.ts` (under Node 24 for the figures in docs/performance.md).
 */
import { mkdtempSync } from 'node:fs'
import { Agent, createServer as createHttpServer, request } from 'node:http'
import { connect, createServer, type AddressInfo, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startCredentialService } from '../service/server.js'
import { Keeper } from '../src/core/tunnel/keeper/keeper.js'
import type { ForwardContext } from '../src/core/tunnel/keeper/forwarding/forward-context.js'
import type { HttpHooks } from '../src/core/tunnel/keeper/http/hooks.js'
import { HttpConnection } from '../src/core/tunnel/keeper/http/http-connection.js'
import { median } from './numbers.js'
import { downloadThroughput, smallRequestTimes, startBenchApp } from './tunnel-load.js'

const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 3)
const SMALL = 200
const p99 = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.99)]
const hooks: HttpHooks = { passNotHttp: true, record: () => undefined }

async function listen(server: Server): Promise<number> {
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

/** Proxies in front of the app: each variant of the layer, alone. */
async function proxies(appPort: number): Promise<Record<string, { port: number; server: Server }>> {
  const raw = createServer(socket => {
    const app = connect({ port: appPort, host: '127.0.0.1', noDelay: true })
    socket.setNoDelay(true)
    socket.pipe(app).pipe(socket)
    socket.on('error', () => app.destroy())
    app.on('error', () => socket.destroy())
  })
  const context: ForwardContext = {
    entries: [],
    lookup: undefined as never,
    served: () => undefined,
    bytes: () => undefined,
    localError: () => undefined,
    track: () => undefined
  }
  const own = createServer(socket => {
    socket.setNoDelay(true)
    socket.on('error', () => undefined)
    const entry = { name: 'web', host: '127.0.0.1', port: appPort }
    new HttpConnection(socket, entry, undefined, { ...context, entries: [entry] }, hooks).start(
      Buffer.alloc(0)
    )
  })
  const agent = new Agent({ keepAlive: true })
  const node = createHttpServer((req, res) => {
    const upstream = request(
      {
        host: '127.0.0.1',
        port: appPort,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent
      },
      answer => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      }
    )
    upstream.on('error', () => res.destroy())
    req.pipe(upstream)
  })
  return {
    'raw pipe': { port: await listen(raw), server: raw },
    'own reader': { port: await listen(own), server: own },
    'node http': { port: await listen(node), server: node }
  }
}

interface Figures {
  latency: number[]
  throughput: number[]
}

async function measure(figures: Figures, port: number, host: string): Promise<void> {
  figures.latency.push(...(await smallRequestTimes(port, host, SMALL)))
  figures.throughput.push(await downloadThroughput(port, host))
}

function report(title: string, all: Record<string, Figures>): void {
  console.log(`\n${title}`)
  for (const [name, { latency, throughput }] of Object.entries(all)) {
    console.log(
      `  ${name.padEnd(12)} latency median ${median(latency).toFixed(3)} ms, p99 ${p99(latency).toFixed(3)} ms; ` +
        `50 MiB ${median(throughput).toFixed(0)} MB/s`
    )
  }
}

async function throughTunnel(appPort: number): Promise<void> {
  const service = await startCredentialService({ tunnel: {} })
  const tunnel = service.tunnel!
  const all: Record<string, Figures> = {}
  for (const [name, http] of [
    ['raw pipe', undefined],
    ['HTTP layer', hooks]
  ] as const) {
    const answer = await fetch(`${service.baseUrl}/credential-provision`, {
      method: 'POST',
      headers: { 'x-api-key': service.seed.provisionKey },
      body: JSON.stringify({ project: service.seed.project })
    })
    const { token, tunnel_user: user } = (await answer.json()) as Record<string, string>
    const dir = mkdtempSync(join(tmpdir(), 'bench-http-'))
    let ready: () => void = () => undefined
    const isReady = new Promise<void>(resolve => (ready = resolve))
    const keeper = new Keeper(
      {
        host: tunnel.host,
        port: tunnel.port,
        user,
        token,
        entries: [{ name: 'web', host: '127.0.0.1', port: appPort }],
        hostKeyPins: [],
        attemptTimeoutMs: 5000,
        maxAttempts: 1,
        logPath: join(dir, 'log'),
        statsPath: join(dir, 'stats'),
        stopPath: join(dir, 'stop')
      },
      { report: () => ready(), now: Date.now, random: Math.random, pid: process.pid },
      http
    )
    const done = keeper.run()
    await isReady
    all[name] = { latency: [], throughput: [] }
    for (let round = 0; round < ROUNDS; round += 1) {
      await measure(all[name], tunnel.frontPort, `web-${user}.localhost:${tunnel.frontPort}`)
    }
    keeper.stop()
    await done
  }
  await service.close()
  report('Through the tunnel (keeper in this process, stand-in front):', all)
}

async function main(): Promise<void> {
  const app = await startBenchApp()
  const variants = await proxies(app.port)
  const all: Record<string, Figures> = {}
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [name, { port }] of Object.entries(variants)) {
      all[name] ??= { latency: [], throughput: [] }
      await measure(all[name], port, 'app.localhost')
    }
  }
  report(
    `The layer alone (${process.version}, ${ROUNDS} rounds of ${SMALL} GETs and a download):`,
    all
  )
  for (const { server } of Object.values(variants)) server.close()
  await throughTunnel(app.port)
  await app.close()
  process.exit(0)
}

await main()
