/**
 * The tunnel stand-in's sessions end: when the credential is revoked, when a free credential's
 * uptime is over, and when the admin drops them all (nothing revoked).
 */
import { request } from 'node:http'
import type { ClientChannel } from 'ssh2'
import { useStandIn } from './helpers/stand-in-suite.js'

const {
  service,
  tunnel,
  clients,
  tick,
  provision,
  free,
  revoke,
  connect,
  forward,
  serveForwards,
  get,
  closed,
  statusOf,
  eventsOf
} = useStandIn()

describe('sessions end when the credential does', () => {
  it('closes an open session when its token is revoked, then answers 502', async () => {
    const credential = await provision()
    const client = await connect(credential)
    serveForwards(client, 'up')
    await forward(client, 'app')
    expect((await get(`app-${credential.user}.localhost`)).status).toBe(200)
    const ended = closed(client)
    await revoke(credential.user)
    await ended
    expect((await get(`app-${credential.user}.localhost`)).status).toBe(502)
    expect(eventsOf(credential.user).at(-1)).toMatchObject({
      event: 'closed',
      detail: 'credential revoked'
    })
  })

  it('ends a free credential session after max_uptime_minutes (5)', async () => {
    const credential = await free()
    const client = await connect(credential)
    const ended = closed(client)
    tick(5 * 60_000 - 1)
    await new Promise(resolve => setTimeout(resolve, 100))
    expect(
      tunnel()
        .sessions()
        .map(s => s.user)
    ).toContain(credential.user)
    tick(1)
    await ended
    tick(-5 * 60_000)
    expect(eventsOf(credential.user).at(-1)).toMatchObject({
      event: 'closed',
      detail: 'max_uptime_minutes (5) reached'
    })
  })
})

describe('POST /__admin/tunnel/drop: every session closed, nothing revoked', () => {
  const drop = async () => {
    const response = await fetch(`${service().adminUrl}/tunnel/drop`, { method: 'POST' })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }

  it('closes every open session; the same token logs in again and its forward answers', async () => {
    const first = await provision()
    const second = await provision()
    const clientA = await connect(first)
    const clientB = await connect(second)
    await forward(clientA, 'app')
    const bothClosed = Promise.all([closed(clientA), closed(clientB)])

    const answer = await drop()
    await bothClosed

    expect(answer).toEqual({
      status: 200,
      body: expect.objectContaining({ success: true, dropped: expect.any(Number) })
    })
    expect(answer.body.dropped).toBeGreaterThanOrEqual(2)
    expect(tunnel().sessions()).toEqual([])
    expect((await get(`app-${first.user}.localhost`)).status).toBe(502)
    expect(eventsOf(first.user).at(-1)).toMatchObject({
      event: 'closed',
      detail: 'dropped (admin tunnel/drop)'
    })
    expect(statusOf(first.user)).toBe('active')

    const again = await connect(first)
    serveForwards(again, 'back again')
    await forward(again, 'app')
    expect(await get(`app-${first.user}.localhost`)).toEqual({ status: 200, body: 'back again' })
  })

  it('ends a request that was running through a dropped session instead of leaving it hanging', async () => {
    const credential = await provision()
    const client = await connect(credential)
    // The app answers the head and never finishes the body: the request is still running.
    client.on('tcp connection', (_details, accept) => {
      const channel: ClientChannel = accept()
      channel.once('data', () =>
        channel.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npart')
      )
    })
    await forward(client, 'app')
    const running = new Promise<string>(resolve => {
      const req = request({
        host: '127.0.0.1',
        port: tunnel().frontPort,
        agent: false,
        headers: { host: `app-${credential.user}.localhost` }
      })
      req.on('response', res => {
        res.on('data', () => undefined)
        res.on('error', error => resolve(`response cut: ${error.message}`))
        res.on('end', () => resolve('response complete'))
      })
      req.on('error', error => resolve(`request failed: ${error.message}`))
      req.end()
    })
    await new Promise(resolve => setTimeout(resolve, 100))
    await drop()
    expect(await running).toMatch(/^response cut: /)
  })

  it('answers 200 with nothing to drop', async () => {
    for (const client of clients.splice(0)) client.end()
    await new Promise(resolve => setTimeout(resolve, 50))
    expect(await drop()).toMatchObject({ status: 200, body: { dropped: 0 } })
  })
})
