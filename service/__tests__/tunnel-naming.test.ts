/**
 * Public URLs like the real server's: `{name}-{user}.{fqdn}` on a shared server, `{name}.{fqdn}`
 * on a dedicated or self-hosted one; the front routes on the first label of `Host`, and a name in
 * use is refused a second time in both forms.
 */
import { request } from 'node:http'
import { startCredentialService, type RunningService, type ServiceOptions } from '../server.js'
import {
  forward,
  login,
  provision,
  serveWith,
  startNamedApp,
  type NamedApp
} from './helpers/tunnel-client.js'

const services: RunningService[] = []
const apps: NamedApp[] = []
afterAll(async () => {
  await Promise.all([...services, ...apps].map(running => running.close()))
})

async function start(options: ServiceOptions): Promise<RunningService> {
  const service = await startCredentialService({ tunnel: true, ...options })
  services.push(service)
  return service
}

async function app(name: string): Promise<NamedApp> {
  const started = await startNamedApp(name)
  apps.push(started)
  return started
}

/** A GET through the front with this Host (no connection reuse). */
function get(service: RunningService, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: service.tunnel!.frontPort,
        path: '/',
        agent: false,
        headers: { host: `${host}:${service.tunnel!.frontPort}` }
      },
      res => {
        let body = ''
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      }
    )
    req.on('error', reject)
    req.end()
  })
}

/** A tunnel user with `name` forwarded to a fresh app called `appName`. */
async function expose(service: RunningService, name: string, appName: string) {
  const credential = await provision(service)
  const client = await login(service, credential)
  serveWith(client, (await app(appName)).port)
  await forward(client, name)
  return { credential, client }
}

describe('a shared server: {name}-{user}.{tunnel_fqdn}', () => {
  it('serves the URL it hands out on a domain that is not the SSH host', async () => {
    const service = await start({
      answerShape: 'product',
      tunnelFqdn: 'cicd.eu1.localhost',
      tunnelHost: 's1.eu1.localhost'
    })
    const { credential } = await expose(service, 'web', 'the shared app')
    const host = `web-${credential.user}.cicd.eu1.localhost`
    expect(service.tunnel!.forwards()).toContainEqual({ user: credential.user, name: 'web', host })
    expect(service.tunnel!.urlFor('web', credential.user)).toBe(
      `http://${host}:${service.tunnel!.frontPort}/`
    )
    expect(service.tunnel!.urlTemplate).toBe(
      `http://{name}-{user}.cicd.eu1.localhost:${service.tunnel!.frontPort}`
    )
    expect(await get(service, host)).toEqual({ status: 200, body: 'the shared app: GET /' })
    // Routed on the first label: an edge that rewrites the domain still reaches it.
    expect(await get(service, `web-${credential.user}.tunnel.internal`)).toMatchObject({
      status: 200
    })
    // The name alone is not this server's form.
    expect(await get(service, 'web.cicd.eu1.localhost')).toMatchObject({ status: 502 })
  })

  it('refuses a second registration of {name}-{user}, but not the same name of another user', async () => {
    const service = await start({})
    const { credential, client } = await expose(service, 'web', 'first')
    const again = await login(service, credential)
    await expect(forward(again, 'web')).rejects.toThrow()
    await expect(forward(client, 'web')).rejects.toThrow()
    expect(service.tunnel!.events().at(-1)).toMatchObject({
      user: credential.user,
      event: 'forward refused',
      detail: `web-${credential.user} is already forwarded`
    })
    const other = await expose(service, 'web', 'second')
    expect(await get(service, `web-${other.credential.user}.localhost`)).toEqual({
      status: 200,
      body: 'second: GET /'
    })
    expect(await get(service, `web-${credential.user}.localhost`)).toEqual({
      status: 200,
      body: 'first: GET /'
    })
  })
})

describe.each([['dedicated' as const], ['self-hosted' as const]])(
  'a %s server: {name}.{tunnel_fqdn}',
  ownership => {
    it('serves {name} alone, and two users asking for the same name collide', async () => {
      const service = await start({
        answerShape: 'product',
        ownership,
        tunnelFqdn: 'team.localhost'
      })
      const first = await expose(service, 'web', 'first user')
      expect(service.tunnel!.forwards()).toContainEqual({
        user: first.credential.user,
        name: 'web',
        host: 'web.team.localhost'
      })
      expect(service.tunnel!.urlTemplate).toBe(
        `http://{name}.team.localhost:${service.tunnel!.frontPort}`
      )
      expect(await get(service, 'web.team.localhost')).toEqual({
        status: 200,
        body: 'first user: GET /'
      })
      expect(await get(service, `web-${first.credential.user}.team.localhost`)).toMatchObject({
        status: 502
      })

      const secondUser = await provision(service)
      const second = await login(service, secondUser)
      await expect(forward(second, 'web')).rejects.toThrow()
      expect(service.tunnel!.events().at(-1)).toMatchObject({
        user: secondUser.user,
        event: 'forward refused',
        detail: 'web is already forwarded'
      })
      // The first holder keeps it.
      expect(await get(service, 'web.team.localhost')).toEqual({
        status: 200,
        body: 'first user: GET /'
      })
      // Once it is gone, the name is free for the other user.
      first.client.end()
      await new Promise(resolve => setTimeout(resolve, 100))
      serveWith(second, (await app('second user')).port)
      await forward(second, 'web')
      expect(await get(service, 'web.team.localhost')).toEqual({
        status: 200,
        body: 'second user: GET /'
      })
    })
  }
)

describe('hosts that name no tunnel', () => {
  it('answers 502 for a host of one label or an address', async () => {
    const service = await start({ ownership: 'dedicated' })
    await expose(service, '127', 'numbers')
    await expose(service, 'localhost', 'local')
    for (const host of ['127.0.0.1', 'localhost']) {
      expect(await get(service, host)).toEqual({
        status: 502,
        body: `No tunnel is open for ${host}\n`
      })
    }
  })
})
