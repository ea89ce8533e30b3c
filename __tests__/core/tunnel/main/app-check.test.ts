/** The local app check: a warning for an entry whose HOST:PORT takes no connection. */
import { createServer, type Server } from 'node:net'
import type { AddressInfo } from 'node:net'
import { appsNotListening, appWarning } from '../../../../src/core/tunnel/main/app-check.js'

let listening: Server
let port: number
let closedPort: number

beforeAll(async () => {
  listening = createServer(socket => socket.end())
  await new Promise<void>(resolve => listening.listen(0, '127.0.0.1', resolve))
  port = (listening.address() as AddressInfo).port
  const closed = createServer()
  await new Promise<void>(resolve => closed.listen(0, '127.0.0.1', resolve))
  closedPort = (closed.address() as AddressInfo).port
  await new Promise(resolve => closed.close(resolve))
})
afterAll(() => new Promise(resolve => listening.close(resolve)))

describe('appsNotListening', () => {
  it('names only the entries whose app takes no connection, all tried at once', async () => {
    const entries = [
      { name: 'web', host: '127.0.0.1', port },
      { name: 'api', host: '127.0.0.1', port: closedPort },
      { name: 'v6', host: '::1', port: closedPort }
    ]
    const silent = await appsNotListening(entries)
    expect(silent.map(s => s.entry.name)).toEqual(['api', 'v6'])
    const warning = appWarning(silent[0], name => `input ${name}`)
    expect(warning).toContain('"api"')
    expect(warning).toContain(`127.0.0.1:${closedPort}`)
    expect(warning).toContain('input expose')
    expect(appWarning(silent[1], name => name)).toContain(`[::1]:${closedPort}`)
  })

  it('gives up on an address that does not answer within its time limit', async () => {
    // TEST-NET-1 (RFC 5737): routed nowhere, so the connect neither succeeds nor is refused.
    const started = Date.now()
    const silent = await appsNotListening([{ name: 'far', host: '192.0.2.1', port: 80 }], 200)
    expect(silent.map(s => s.entry.name)).toEqual(['far'])
    expect(Date.now() - started).toBeLessThan(1_500)
  })
})
