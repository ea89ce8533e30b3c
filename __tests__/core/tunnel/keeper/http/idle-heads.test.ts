/**
 * Public connections that send no whole request head are bounded (head-watch.ts): closed after
 * the head time, and closed largest-first past the memory budget, while other clients are
 * served. Through the stand-in's raw TCP port, which passes bytes on as they come (as OpenSSH's
 * `-R` does); its HTTP front would read each head itself first. Limits shortened to milliseconds.
 */
import { cleanUp } from '../../../../helpers/ssh-stand-in.js'
import {
  openSocket,
  startHttpTunnel,
  startTestApp,
  type HttpTunnel,
  type TestApp
} from '../../../../helpers/http-tunnel.js'
import type { HeadLimits } from '../../../../../src/core/tunnel/keeper/http/head-watch.js'

const HEAD_MS = 400
let app: TestApp
const tunnels: HttpTunnel[] = []

beforeAll(async () => (app = await startTestApp()))
beforeEach(() => void (app.seen.length = 0))
afterEach(() => cleanUp())
afterAll(async () => {
  await app.close()
  for (const tunnel of tunnels) await tunnel.service.close()
})

async function start(limits: Partial<HeadLimits> = {}): Promise<HttpTunnel> {
  const tunnel = await startHttpTunnel(
    [{ name: 'web', host: '127.0.0.1', port: app.port }],
    {},
    {},
    { headLimits: { headMs: HEAD_MS, sweepMs: 20, budgetBytes: 1024 * 1024, ...limits } }
  )
  tunnels.push(tunnel)
  return tunnel
}

const rawPort = (tunnel: HttpTunnel) => tunnel.service.tunnel!.rawPort('web', tunnel.user)
const elapsed = (since: number) => Date.now() - since
const request = (tunnel: HttpTunnel, path: string, close = true) =>
  `GET ${path} HTTP/1.1\r\nHost: ${tunnel.hostFor('web')}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`

describe('a connection that sends no whole request head', () => {
  it('is closed after the head time, while another client is served', async () => {
    const tunnel = await start()
    const port = await rawPort(tunnel)
    const started = Date.now()
    const silent = await openSocket(port)
    const partial = await openSocket(port)
    partial.socket.write(`GET /never HTTP/1.1\r\nHost: ${tunnel.hostFor('web')}\r\nX-Slow: 1`)
    // Served meanwhile, on the same raw port.
    const served = await openSocket(port)
    served.socket.write(request(tunnel, '/served'))
    await served.closed
    expect(served.received().toString('latin1')).toMatch(/^HTTP\/1\.1 200 /)
    await Promise.all([silent.closed, partial.closed])
    expect(elapsed(started)).toBeGreaterThanOrEqual(HEAD_MS)
    expect(elapsed(started)).toBeLessThan(HEAD_MS + 3_000)
    expect(silent.received()).toHaveLength(0)
    expect(partial.received()).toHaveLength(0)
    expect(app.seen.map(seen => seen.url)).toEqual(['/served'])
  })

  it('on a keep-alive connection: closed once idle for the head time after its answer', async () => {
    const tunnel = await start()
    const client = await openSocket(await rawPort(tunnel))
    client.socket.write(request(tunnel, '/first', false))
    await client.until(received => received.toString('latin1').includes('GET /first'))
    const answered = Date.now()
    await client.closed
    expect(elapsed(answered)).toBeGreaterThanOrEqual(HEAD_MS - 50)
    // Well before the app's own keep-alive limit (Node's 5 s) would close it.
    expect(elapsed(answered)).toBeLessThan(HEAD_MS + 2_500)
    expect(app.seen.map(seen => seen.url)).toEqual(['/first'])
  })

  it('is not cut while its answer streams, however long that takes', async () => {
    const tunnel = await start()
    const client = await openSocket(await rawPort(tunnel))
    client.socket.write(request(tunnel, '/sse', false))
    await client.until(received => received.toString('latin1').includes('data: first'))
    await new Promise(resolve => setTimeout(resolve, HEAD_MS * 3))
    app.endEvents()
    await client.until(received => received.toString('latin1').includes('data: last'))
    client.socket.destroy()
  })
})

describe('the memory budget of unfinished heads', () => {
  it('past it, the connection holding the most is closed; the others are served', async () => {
    // The head time is out of the way: only the budget closes here.
    const tunnel = await start({ headMs: 60_000, budgetBytes: 12 * 1024 })
    const port = await rawPort(tunnel)
    const start_ = `GET /small HTTP/1.1\r\nHost: ${tunnel.hostFor('web')}\r\n`
    const small = await openSocket(port)
    small.socket.write(`${start_}X-Pad: ${'s'.repeat(3 * 1024)}\r\n`)
    const large = await openSocket(port)
    large.socket.write(`GET /large HTTP/1.1\r\nX-Pad: ${'l'.repeat(8 * 1024)}\r\n`)
    await new Promise(resolve => setTimeout(resolve, 200))
    // 3 + 8 KiB fit; 2 KiB more do not, and the largest goes.
    small.socket.write(`X-More: ${'m'.repeat(2 * 1024)}\r\n`)
    await large.closed
    expect(large.received()).toHaveLength(0)
    small.socket.write('Connection: close\r\n\r\n')
    await small.closed
    expect(small.received().toString('latin1')).toMatch(/^HTTP\/1\.1 200 /)
    expect(app.seen.map(seen => seen.url)).toEqual(['/small'])
  })
})
