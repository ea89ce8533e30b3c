/** The tunnel stand-in, driven with ssh2's own Client: logins, forwards, the front, limits. */
import { readFileSync } from 'node:fs'
import { useStandIn, type Credential } from './helpers/stand-in-suite.js'

const {
  service,
  tunnel,
  provision,
  free,
  revoke,
  connect,
  forward,
  serveForwards,
  get,
  closed,
  authFailure,
  eventsOf
} = useStandIn()

describe('the tunnel stand-in starts with the service', () => {
  it('hands out its own host and port, and writes known_hosts with its key', async () => {
    const { tunnelHost, tunnelPort } = service()
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
    const view = service()
      .tokens()
      .find(t => t.tunnel_user === credential.user)
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
        service().expire(c.user)
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
