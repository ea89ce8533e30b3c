/**
 * The keeper's timeline, as post reads it from the record: how long each entry's app could not
 * be reached (raw path and HTTP path), when the first forward worked, and when the SSH
 * connection was down and why. Real sockets, the stand-in's tunnel, the keeper in-process.
 */
import { createServer, type AddressInfo, type Server } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cleanUp, eventually } from '../../../helpers/ssh-stand-in.js'
import { openSocket, startHttpTunnel, type HttpTunnel } from '../../../helpers/http-tunnel.js'
import type { KeeperConfig } from '../../../../src/core/tunnel/protocol.js'

let dir: string
const tunnels: HttpTunnel[] = []
const servers: Server[] = []

beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'timeline-'))))
afterEach(async () => {
  await cleanUp()
  for (const server of servers.splice(0)) server.close()
  rmSync(dir, { recursive: true, force: true })
})
afterAll(async () => {
  for (const tunnel of tunnels) await tunnel.service.close()
})

/** An app that answers every connection with a small HTTP answer, on `port` (0: any). */
async function startApp(port = 0): Promise<number> {
  const server = createServer(socket => {
    socket.on('error', () => undefined)
    socket.once('data', () =>
      socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok')
    )
  })
  servers.push(server)
  await new Promise<void>(resolve => server.listen(port, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

async function freePort(): Promise<number> {
  const port = await startApp()
  await new Promise(resolve => servers.pop()!.close(resolve))
  return port
}

async function start(port: number, config: Partial<KeeperConfig> = {}): Promise<HttpTunnel> {
  const tunnel = await startHttpTunnel([{ name: 'web', host: '127.0.0.1', port }], 'none', config)
  tunnels.push(tunnel)
  return tunnel
}

async function send(tunnel: HttpTunnel): Promise<string> {
  const client = await openSocket(tunnel.frontPort)
  client.socket.write(
    `GET / HTTP/1.1\r\nHost: ${tunnel.hostFor('web')}\r\nConnection: close\r\n\r\n`
  )
  await client.closed
  return client.received().toString('latin1')
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

const paths: [string, Partial<KeeperConfig>][] = [
  ['the raw path', { requestLog: { enabled: false, bodyBytes: 0, headers: 'redacted' } }],
  // The files are made per test below.
  ['the HTTP path', { requestLogFiles: { harPath: '', spoolPath: '', tallyPath: '' } }]
]

describe.each(paths)('on %s, the timeline', (_name, config) => {
  const withFiles = (): Partial<KeeperConfig> =>
    config.requestLogFiles === undefined
      ? config
      : {
          requestLogFiles: {
            harPath: join(dir, 'requests.har'),
            spoolPath: join(dir, 'spool'),
            tallyPath: join(dir, 'tally.json')
          }
        }

  it('records how long the app was unreachable, and logs the first forward once', async () => {
    const port = await freePort()
    const tunnel = await start(port, withFiles())
    expect(await send(tunnel)).toMatch(/^HTTP\/1\.1 502 /)
    await sleep(400)
    expect(await send(tunnel)).toMatch(/^HTTP\/1\.1 502 /)
    await startApp(port)
    expect(await send(tunnel)).toMatch(/^HTTP\/1\.1 200 /)
    expect(await send(tunnel)).toMatch(/^HTTP\/1\.1 200 /)
    tunnel.keeper.keeper.stop()
    const stats = await tunnel.keeper.done
    const web = stats.timeline!.apps.web
    expect(web.unreachableMs).toBeGreaterThanOrEqual(400)
    expect(web.unreachableMs).toBeLessThan(5_000)
    expect(web.longestMs).toBe(web.unreachableMs)
    expect(Date.parse(web.firstForwardAt!)).toBeGreaterThan(Date.parse(stats.readyAt!))
    expect(stats.timeline!.down).toEqual([])
    // The record post reads says the same.
    expect(tunnel.keeper.stats().timeline).toEqual(stats.timeline)
    const firstForward = tunnel.keeper
      .log()
      .split('\n')
      .filter(line => /first/i.test(line) && line.includes(`127.0.0.1:${port}`))
    expect(firstForward).toHaveLength(1)
  })

  it('counts an outage still going on up to the end', async () => {
    const tunnel = await start(await freePort(), withFiles())
    await send(tunnel)
    await sleep(300)
    tunnel.keeper.keeper.stop()
    const web = (await tunnel.keeper.done).timeline!.apps.web
    expect(web.unreachableMs).toBeGreaterThanOrEqual(300)
    expect(web.firstForwardAt).toBeUndefined()
  })
})

describe('the timeline of the connection', () => {
  it('records a down period with its reason when the SSH connection drops, closed at the reconnect', async () => {
    const tunnel = await start(await startApp())
    expect(tunnel.keeper.stats().timeline!.down).toEqual([])
    expect(tunnel.service.tunnel!.dropSessions()).toBe(1)
    const stats = await eventually(
      tunnel.keeper.stats,
      s => s.reconnects === 1 && s.state === 'ready'
    )
    expect(stats.timeline!.down).toEqual([
      { from: expect.any(String), to: expect.any(String), reason: expect.any(String) }
    ])
    const [down] = stats.timeline!.down
    expect(down.reason.length).toBeGreaterThan(0)
    expect(Date.parse(down.to!)).toBeGreaterThanOrEqual(Date.parse(down.from))
    expect(await send(tunnel)).toMatch(/^HTTP\/1\.1 200 /)
  })
})
