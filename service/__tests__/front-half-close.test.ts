/**
 * A kept channel that the tunnel client ended (it sent EOF and nothing more) while it waited in the
 * front's pool carries no further request: the next request to that forward gets a new channel
 * instead of being written into one nobody reads, where it would hang.
 */
import { Agent, request } from 'node:http'
import { startCredentialService, type RunningService } from '../server.js'
import { forward, login, provision } from './helpers/tunnel-client.js'

let service: RunningService
let host: string
let channelsOpened = 0

beforeAll(async () => {
  service = await startCredentialService({ tunnel: true })
  const credential = await provision(service)
  const client = await login(service, credential)
  // Answers one request per channel, then half-closes it: an EOF with no close, which a tunnel
  // client may send when its app ends its side first.
  client.on('tcp connection', (_details, accept) => {
    channelsOpened += 1
    const channel = accept()
    channel.once('data', () => channel.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'))
    channel.on('error', () => undefined)
  })
  await forward(client, 'web')
  host = `web-${credential.user}.localhost:${service.tunnel!.frontPort}`
})
afterAll(() => service.close())

function get(agent: Agent): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: service.tunnel!.frontPort, path: '/', agent, headers: { host } },
      res => {
        let body = ''
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve(body))
      }
    )
    req.setTimeout(5000, () => req.destroy(new Error('no answer within 5 s')))
    req.on('error', reject)
    req.end()
  })
}

it('opens a new channel for the next request rather than reuse one the tunnel client ended', async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  try {
    expect(await get(agent)).toBe('ok')
    // Let the EOF reach the front while its channel waits in the pool.
    await new Promise(resolve => setTimeout(resolve, 200))
    expect(await get(agent)).toBe('ok')
    expect(await get(agent)).toBe('ok')
    expect(channelsOpened).toBe(3)
  } finally {
    agent.destroy()
  }
}, 20_000)
