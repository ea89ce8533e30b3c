/** The tunnel stand-in, driven with ssh2's own Client: logins, forwards, the front, limits. */
import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import ssh2, { type ClientChannel, type ConnectConfig } from 'ssh2'
import { startCredentialService, type RunningService } from '../server.js'

const { Client } = ssh2
let clock = Date.now()
let service: RunningService
const clients: InstanceType<typeof Client>[] = []

beforeAll(async () => {
  service = await startCredentialService({
    tunnel: { checkIntervalMs: 20 },
    tunnelHost: 'localhost',
    now: () => clock
  })
})
afterEach(() => {
  for (const client of clients.splice(0)) client.end()
})
afterAll(() => service.close())

const tunnel = () => service.tunnel!

interface Credential {
  user: string
  secret: string
}

async function provision(): Promise<Credential> {
  const response = await fetch(`${service.baseUrl}/credential-provision`, {
    method: 'POST',
    headers: { 'x-api-key': service.seed.provisionKey },
    body: JSON.stringify({ project: service.seed.project })
  })
  const body = (await response.json()) as { token: string; tunnel_user: string }
  return { user: body.tunnel_user, secret: body.token }
}

async function free(): Promise<Credential> {
  const response = await fetch(`${service.baseUrl}/create-ephemeral-token`, { method: 'POST' })
  const body = (await response.json()) as { tunnel_client_id: string; tunnel_client_secret: string }
  return { user: body.tunnel_client_id, secret: body.tunnel_client_secret }
}

async function revoke(user: string): Promise<void> {
  await fetch(`${service.baseUrl}/revoke-token`, {
    method: 'POST',
    headers: { 'x-api-key': service.seed.provisionKey },
    body: JSON.stringify({ tunnel_user: user })
  })
}

type Client = InstanceType<typeof Client>

/** Logs in; resolves with the ready client or rejects with ssh2's error. */
function connect(credential: Credential, extra: Partial<ConnectConfig> = {}): Promise<Client> {
  const client = new Client()
  clients.push(client)
  return new Promise((resolve, reject) => {
    client.on('ready', () => resolve(client))
    client.on('error', reject)
    client.connect({
      host: '127.0.0.1',
      port: tunnel().port,
      username: credential.user,
      password: credential.secret,
      readyTimeout: 5000,
      ...extra
    })
  })
}

/** Asks for `-R <name>:80`, and answers every forwarded connection with `text`. */
function forward(client: Client, name: string, port = 80): Promise<void> {
  return new Promise((resolve, reject) =>
    client.forwardIn(name, port, error => (error === undefined ? resolve() : reject(error)))
  )
}

function serveForwards(client: Client, text: string): void {
  client.on('tcp connection', (_details, accept) => {
    const channel: ClientChannel = accept()
    channel.once('data', () => {
      channel.end(
        `HTTP/1.1 200 OK\r\nContent-Length: ${text.length}\r\nConnection: close\r\n\r\n${text}`
      )
    })
  })
}

function get(host: string | null): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: tunnel().frontPort,
        path: '/',
        agent: false,
        setHost: false,
        headers: host === null ? {} : { host: `${host}:${tunnel().frontPort}` }
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

const closed = (client: Client) => new Promise<void>(resolve => client.once('close', resolve))
const authFailure = expect.objectContaining({ level: 'client-authentication' })
const statusOf = (user: string) => service.tokens().find(t => t.tunnel_user === user)?.status
const eventsOf = (user: string) =>
  tunnel()
    .events()
    .filter(event => event.user === user)

describe('the tunnel stand-in starts with the service', () => {
  it('hands out its own host and port, and writes known_hosts with its key', async () => {
    const { tunnelHost, tunnelPort } = service
    expect([tunnelHost, tunnelPort]).toEqual(['localhost', tunnel().port])
    expect(readFileSync(tunnel().knownHostsPath, 'utf8')).toBe(
      `[127.0.0.1]:${tunnelPort} ${tunnel().hostKey}\n[localhost]:${tunnelPort} ${tunnel().hostKey}\n`
    )
    expect(tunnel().hostKey).toMatch(/^ssh-ed25519 AAAA\S+$/)
    let seen = ''
    await connect(await provision(), {
      hostVerifier: (key: Buffer) => {
        seen = key.toString('base64')
        return true
      }
    })
    expect(`ssh-ed25519 ${seen}`).toBe(tunnel().hostKey)
  })
})

describe('logging in: user = tunnel user, password = token', () => {
  it('accepts an active CI/CD credential and counts the use', async () => {
    const credential = await provision()
    await connect(credential)
    const view = service.tokens().find(t => t.tunnel_user === credential.user)
    expect(view).toMatchObject({ usage_count: 1, last_used_at: expect.any(String) })
    expect(eventsOf(credential.user)).toEqual([
      expect.objectContaining({ event: 'connected', detail: 'cicd' })
    ])
  })

  it('accepts a free credential: client id and secret', async () => {
    const credential = await free()
    await connect(credential)
    expect(
      tunnel()
        .sessions()
        .map(s => s.user)
    ).toContain(credential.user)
  })

  it.each([
    ['a wrong token', async (c: Credential) => ({ ...c, secret: `${c.secret}x` }), 'wrong token'],
    ['an unknown user', async (c: Credential) => ({ ...c, user: 'zzzzz' }), 'unknown tunnel user'],
    [
      'a revoked credential',
      async (c: Credential) => {
        await revoke(c.user)
        return c
      },
      'credential revoked'
    ],
    [
      'an expired credential',
      async (c: Credential) => {
        service.expire(c.user)
        return c
      },
      'credential expired'
    ]
  ])('refuses %s', async (_label, change, reason) => {
    const credential = await change(await provision())
    await expect(connect(credential)).rejects.toEqual(authFailure)
    expect(tunnel().events().at(-1)).toMatchObject({ event: 'refused', detail: reason })
  })

  it('records every authentication request, and none from a client that left at the host key', async () => {
    const credential = await provision()
    await connect(credential)
    expect(
      tunnel()
        .loginAttempts()
        .filter(attempt => attempt.user === credential.user)
        .map(attempt => attempt.method)
    ).toEqual(['none', 'password'])
    const wary = await provision()
    await expect(connect(wary, { hostVerifier: () => false })).rejects.toThrow(/Host denied/)
    expect(
      tunnel()
        .loginAttempts()
        .filter(attempt => attempt.user === wary.user)
    ).toEqual([])
  })

  it('allows nothing but remote forwards and the console: no command', async () => {
    const client = await connect(await provision())
    await expect(
      new Promise((resolve, reject) =>
        client.exec('id', (error, stream) => (error ? reject(error) : resolve(stream)))
      )
    ).rejects.toThrow()
  })
})

describe('remote forwards and the HTTP front', () => {
  it('routes <name>-<user>.localhost to the client that asked for <name>:80', async () => {
    const credential = await provision()
    const client = await connect(credential)
    serveForwards(client, 'hello from the client')
    await forward(client, 'App')
    expect(tunnel().forwards()).toContainEqual({
      user: credential.user,
      name: 'app',
      host: `app-${credential.user}.localhost`
    })
    expect(tunnel().urlFor('app', credential.user)).toBe(
      `http://app-${credential.user}.localhost:${tunnel().frontPort}/`
    )
    expect(await get(`app-${credential.user}.localhost`)).toEqual({
      status: 200,
      body: 'hello from the client'
    })
  })

  it('answers 502 with a short message for a name nobody forwards', async () => {
    const credential = await provision()
    const client = await connect(credential)
    await forward(client, 'app')
    for (const host of [`web-${credential.user}.localhost`, 'app-zzzzz.localhost', 'example.com']) {
      expect(await get(host)).toEqual({ status: 502, body: `No tunnel is open for ${host}\n` })
    }
    expect(await get(null)).toMatchObject({ status: 400 })
  })

  it('refuses ports other than 80 and names that are not DNS labels', async () => {
    const credential = await provision()
    const client = await connect(credential)
    await expect(forward(client, 'app', 8080)).rejects.toThrow()
    await expect(forward(client, 'no_underscores', 80)).rejects.toThrow()
    expect(eventsOf(credential.user).map(e => e.detail)).toEqual([
      'cicd',
      'only port 80 can be forwarded, not 8080',
      'the name must be letters, digits and dashes (a DNS label)'
    ])
  })

  it('gives one tunnel user at most 5 forwards, across connections; cancelling frees one', async () => {
    const credential = await provision()
    const first = await connect(credential)
    const second = await connect(credential)
    for (const name of ['a1', 'a2', 'a3']) await forward(first, name)
    for (const name of ['b1', 'b2']) await forward(second, name)
    await expect(forward(second, 'b3')).rejects.toThrow()
    await expect(forward(first, 'a1')).rejects.toThrow() // a name is held once
    expect(eventsOf(credential.user).at(-2)?.detail).toBe(
      'at most 5 forwards per tunnel user, across all its sessions'
    )
    await new Promise<void>((resolve, reject) =>
      first.unforwardIn('a3', 80, error => (error === undefined ? resolve() : reject(error)))
    )
    await forward(second, 'b3')
    expect(
      tunnel()
        .forwards()
        .filter(f => f.user === credential.user)
    ).toHaveLength(5)
    // Another user is not counted against this one.
    await forward(await connect(await provision()), 'a1')
  })

  it('drops the forwards of a connection that ends', async () => {
    const credential = await provision()
    const client = await connect(credential)
    await forward(client, 'app')
    const ended = closed(client)
    client.end()
    await ended
    await new Promise(resolve => setTimeout(resolve, 50))
    expect(
      tunnel()
        .forwards()
        .filter(f => f.user === credential.user)
    ).toEqual([])
    expect((await get(`app-${credential.user}.localhost`)).status).toBe(502)
  })
})

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
    clock += 5 * 60_000 - 1
    await new Promise(resolve => setTimeout(resolve, 100))
    expect(
      tunnel()
        .sessions()
        .map(s => s.user)
    ).toContain(credential.user)
    clock += 1
    await ended
    clock -= 5 * 60_000
    expect(eventsOf(credential.user).at(-1)).toMatchObject({
      event: 'closed',
      detail: 'max_uptime_minutes (5) reached'
    })
  })
})

describe('POST /__admin/tunnel/drop: every session closed, nothing revoked', () => {
  const drop = async () => {
    const response = await fetch(`${service.adminUrl}/tunnel/drop`, { method: 'POST' })
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

describe('the url-template the stand-in prints', () => {
  it('forms the URL its front serves for a forward', async () => {
    const credential = await provision()
    const client = await connect(credential)
    serveForwards(client, 'templated')
    await forward(client, 'web')
    const url = tunnel().urlTemplate.replace('{name}', 'web').replace('{user}', credential.user)
    expect(`${url}/`).toBe(tunnel().urlFor('web', credential.user))
    expect(await get(new URL(url).hostname)).toEqual({ status: 200, body: 'templated' })
  })
})
