/**
 * The keeper's logic, run in this process against the service's tunnel stand-in (real SSH,
 * real HTTP front). The detached process around it is tested in process.test.ts and e2e.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect, createServer, Socket, type AddressInfo, type Server } from 'node:net'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ssh2 from 'ssh2'
import { getThroughFront, startLocalApp } from '../../../../scripts/openssh.js'
import { ed25519KeyPair } from '../../../../service/__tests__/helpers/ed25519.js'
import { startCredentialService, type RunningService } from '../../../../service/server.js'
import { cleanUp, runKeeper, type RunningKeeper } from '../../../helpers/ssh-stand-in.js'
import { COLLECT_EVERY_BYTES, type KeeperIo } from '../../../../src/core/tunnel/keeper/io.js'
import type { ExposeEntry, KeeperConfig } from '../../../../src/core/tunnel/protocol.js'

let service: RunningService
let app: Awaited<ReturnType<typeof startLocalApp>>
const dirs: string[] = []
const servers: Server[] = []

beforeAll(async () => {
  service = await startCredentialService({ tunnel: { checkIntervalMs: 50 } })
  app = await startLocalApp('answer from the local app')
})
afterEach(cleanUp)
afterAll(async () => {
  await app.close()
  await service.close()
  for (const server of servers) server.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const tunnel = () => service.tunnel!

interface Credential {
  user: string
  token: string
}

async function provision(): Promise<Credential> {
  const response = await fetch(`${service.baseUrl}/credential-provision`, {
    method: 'POST',
    headers: { 'x-api-key': service.seed.provisionKey },
    body: JSON.stringify({ project: service.seed.project })
  })
  const body = (await response.json()) as { token: string; tunnel_user: string }
  return { user: body.tunnel_user, token: body.token }
}

async function revoke(user: string): Promise<void> {
  await fetch(`${service.baseUrl}/revoke-token`, {
    method: 'POST',
    headers: { 'x-api-key': service.seed.provisionKey },
    body: JSON.stringify({ tunnel_user: user })
  })
}

/** A keeper against the local service's tunnel, with a fresh credential; cleanUp() stops it. */
function startKeeper(
  credential: Credential,
  overrides: Partial<KeeperConfig> = {},
  io: Partial<KeeperIo> = {}
): RunningKeeper {
  return runKeeper(
    tunnel().port,
    {
      host: tunnel().host,
      user: credential.user,
      token: credential.token,
      entries: [{ name: 'web', host: '127.0.0.1', port: app.port }],
      ...overrides
    },
    // No jitter (runKeeper's random is 0), shortest waits: 750 ms before the first retry.
    { pid: 4242, ...io }
  )
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
const hostOf = (name: string, user: string) => `${name}-${user}.localhost`
const forwardsOf = (user: string) =>
  tunnel()
    .forwards()
    .filter(forward => forward.user === user)
    .map(forward => forward.name)
    .sort()

async function eventually<T>(read: () => T | Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 8_000
  for (;;) {
    const value = await read()
    if (ok(value) || Date.now() > deadline) return value
    await new Promise(resolve => setTimeout(resolve, 50))
  }
}

/** A TCP relay in front of the stand-in's SSH port; drop() cuts every connection through it. */
async function startRelay(): Promise<{ port: number; drop(): void; to(port: number): void }> {
  const sockets = new Set<Socket>()
  let targetPort = tunnel().port
  const server = createServer(socket => {
    const target = connect(targetPort, tunnel().host)
    for (const s of [socket, target]) {
      sockets.add(s)
      s.on('error', () => undefined)
      s.on('close', () => sockets.delete(s))
    }
    socket.pipe(target).pipe(socket)
    socket.on('close', () => target.destroy())
    target.on('close', () => socket.destroy())
  })
  servers.push(server)
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    drop: () => {
      for (const s of sockets) s.destroy()
    },
    to: (port: number) => {
      targetPort = port
    }
  }
}

describe('the keeper', () => {
  it('reports ready once every forward is accepted, serves both entries, and stops on the stop file', async () => {
    const credential = await provision()
    const other = await startLocalApp('answer from the other app')
    const started = startKeeper(credential, {
      entries: [
        { name: 'web', host: 'localhost', port: app.port },
        { name: 'api', host: '127.0.0.1', port: other.port }
      ]
    })
    const report = await started.report
    expect(report).toEqual({ type: 'ready', fingerprint: tunnel().fingerprint })
    expect(forwardsOf(credential.user)).toEqual(['api', 'web'])

    expect(await getThroughFront(tunnel().frontPort, hostOf('web', credential.user))).toEqual({
      status: 200,
      body: 'answer from the local app (GET /)\n'
    })
    expect(await getThroughFront(tunnel().frontPort, hostOf('api', credential.user))).toEqual({
      status: 200,
      body: 'answer from the other app (GET /)\n'
    })
    await other.close()
    // A local app that is gone fails that one connection; the tunnel stays up.
    expect((await getThroughFront(tunnel().frontPort, hostOf('api', credential.user))).status).toBe(
      502
    )
    expect((await getThroughFront(tunnel().frontPort, hostOf('web', credential.user))).status).toBe(
      200
    )

    writeFileSync(started.config.stopPath, 'stop\n')
    const stats = await started.done
    expect(stats).toMatchObject({
      pid: 4242,
      state: 'stopped',
      reconnects: 0,
      // web's second request reuses the channel of its first: the front keeps it, as a proxy does.
      connections: 2,
      localErrors: 1
    })
    expect(stats.bytesIn).toBeGreaterThan(0)
    expect(stats.bytesOut).toBeGreaterThan(0)
    expect(stats.endedAt).toBeUndefined()
    expect(started.stats()).toEqual(stats)
    expect(
      await eventually(
        () => forwardsOf(credential.user),
        f => f.length === 0
      )
    ).toEqual([])
    const log = started.log()
    expect(log).toContain('Forward web accepted -> localhost:')
    expect(log).toContain(`api: could not reach 127.0.0.1:${other.port} (ECONNREFUSED)`)
    expect(log).toContain('Stop requested')
    expect(log).not.toContain(credential.token)
  })

  it('delivers a large answer whole, even when the local app closes right after sending it', async () => {
    const size = 24 * 1024 * 1024
    const big = createServer(socket => {
      socket.once('data', () => {
        socket.end(
          Buffer.concat([
            Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${size}\r\nConnection: close\r\n\r\n`),
            Buffer.alloc(size, 120)
          ])
        )
      })
    })
    servers.push(big)
    await new Promise<void>(resolve => big.listen(0, '127.0.0.1', resolve))
    const credential = await provision()
    let collections = 0
    const started = startKeeper(
      credential,
      { entries: [{ name: 'big', host: '127.0.0.1', port: (big.address() as AddressInfo).port }] },
      { collectYoung: () => (collections += 1) }
    )
    expect(await started.report).toMatchObject({ type: 'ready' })
    const received = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: tunnel().frontPort,
          headers: { host: `${hostOf('big', credential.user)}:${tunnel().frontPort}` },
          agent: false
        },
        res => {
          let bytes = 0
          // A slow reader: the SSH window fills, so the keeper holds unsent data when the app closes.
          res.pause()
          setTimeout(() => res.resume(), 500)
          res.on('data', (chunk: Buffer) => (bytes += chunk.length))
          res.on('end', () => resolve(bytes))
          res.on('error', reject)
        }
      )
      req.on('error', reject)
      req.end()
    })
    expect(received).toBe(size)
    // The young generation is collected every few MiB through the tunnel (see KeeperIo).
    expect(collections).toBeGreaterThanOrEqual(Math.floor(size / COLLECT_EVERY_BYTES) - 1)
    expect(collections).toBeLessThanOrEqual(Math.ceil(size / COLLECT_EVERY_BYTES))
  }, 30_000)

  it('sends EOF and CLOSE in one write once the local app has answered and closed', async () => {
    const credential = await provision()
    const started = startKeeper(credential)
    expect(await started.report).toMatchObject({ type: 'ready' })
    // Every batch of buffered writes, by any socket in this process: the keeper's own are among them.
    const batches: number[][] = []
    const writev = Socket.prototype._writev!
    Socket.prototype._writev = function (this: Socket, chunks, callback) {
      batches.push(chunks.map(({ chunk }) => (chunk as Buffer).length))
      return writev.call(this, chunks, callback)
    }
    try {
      // The local app answers with Connection: close, so it closes right after the answer.
      expect(await getThroughFront(tunnel().frontPort, hostOf('web', credential.user))).toEqual({
        status: 200,
        body: 'answer from the local app (GET /)\n'
      })
      await eventually(
        () => batches,
        found => found.some(sizes => sizes.reduce((sum, size) => sum + size, 0) === 72)
      )
    } finally {
      Socket.prototype._writev = writev
    }
    // AES-GCM: 36 bytes per packet for CHANNEL_EOF and CHANNEL_CLOSE (in 3 pieces each without
    // ssh2's native addon, whole with it), leaving together rather than in two writes.
    expect(batches.map(sizes => sizes.reduce((sum, size) => sum + size, 0))).toContain(72)
  })

  it('accepts a pinned host key', async () => {
    const started = startKeeper(await provision(), {
      hostKeyPins: [{ fingerprint: tunnel().fingerprint }]
    })
    expect(await started.report).toMatchObject({ type: 'ready' })
  })

  it('leaves a server whose key is not pinned before sending the token', async () => {
    const credential = await provision()
    const wrong = 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU'
    const started = startKeeper(credential, {
      hostKeyPins: [{ fingerprint: wrong }],
      maxAttempts: 3
    })
    expect(await started.report).toEqual({
      type: 'failed',
      cause: 'host-key',
      detail: `the tunnel server's host key is ${tunnel().fingerprint}, which tunnel-host-key does not list`,
      fingerprint: tunnel().fingerprint
    })
    expect(await started.done).toMatchObject({ state: 'ended' })
    expect(
      tunnel()
        .loginAttempts()
        .filter(a => a.user === credential.user)
    ).toEqual([])
    // Not retried: a different key does not become the right one.
    expect(started.log()).toContain('Attempt 1 of 3 failed')
    expect(started.log()).not.toContain('Attempt 2')
  })

  it('reports a refused login without retrying', async () => {
    const credential = await provision()
    await revoke(credential.user)
    const started = startKeeper(credential, { maxAttempts: 3 })
    expect(await started.report).toMatchObject({
      type: 'failed',
      cause: 'auth',
      detail: expect.stringContaining(
        `the tunnel server refused the credential of ${credential.user}`
      )
    })
    expect(started.log()).not.toContain('Attempt 2')
  })

  it('reports a forward the server refuses, by name', async () => {
    const credential = await provision()
    const long = `n${'x'.repeat(60)}`
    const started = startKeeper(credential, {
      entries: [
        { name: 'web', host: 'localhost', port: app.port },
        { name: long, host: 'localhost', port: app.port }
      ]
    })
    expect(await started.report).toMatchObject({
      type: 'failed',
      cause: 'forward',
      name: long,
      detail: `the tunnel server refused the forward for "${long}"`
    })
  })

  it('tries max-attempts times when the server cannot be reached', async () => {
    const closed = createServer()
    await new Promise<void>(resolve => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise(resolve => closed.close(resolve))
    const started = startKeeper(await provision(), { port, maxAttempts: 2 })
    expect(await started.report).toMatchObject({
      type: 'failed',
      cause: 'connect',
      detail: expect.stringContaining('ECONNREFUSED')
    })
    expect(started.log()).toContain('Attempt 2 of 2 failed')
  })

  it('gives up on an attempt after attemptTimeoutMs', async () => {
    const silent = createServer(() => undefined)
    servers.push(silent)
    await new Promise<void>(resolve => silent.listen(0, '127.0.0.1', resolve))
    const started = startKeeper(await provision(), {
      port: (silent.address() as AddressInfo).port,
      attemptTimeoutMs: 300
    })
    expect(await started.report).toMatchObject({ type: 'failed', cause: 'timeout' })
  })

  it('reconnects after a drop and asks for the same forwards again', async () => {
    const credential = await provision()
    const relay = await startRelay()
    const started = startKeeper(credential, { port: relay.port })
    expect(await started.report).toMatchObject({ type: 'ready' })
    relay.drop()
    const answer = await eventually(
      () => getThroughFront(tunnel().frontPort, hostOf('web', credential.user)),
      a => a.status === 200
    )
    expect(answer.status).toBe(200)
    expect(started.log()).toContain('Connection lost; reconnecting')
    expect(started.log()).toContain('Reconnected (reconnect 1)')
    writeFileSync(started.config.stopPath, '')
    expect(await started.done).toMatchObject({ state: 'stopped', reconnects: 1 })
  })

  it('trusts the first host key it saw, and on reconnecting leaves a server with another one', async () => {
    const credential = await provision()
    const relay = await startRelay()
    const started = startKeeper(credential, { port: relay.port })
    expect(await started.report).toMatchObject({ type: 'ready', fingerprint: tunnel().fingerprint })
    const methods: string[] = []
    const impostor = new ssh2.Server(
      { hostKeys: [ssh2.utils.generateKeyPairSync('ecdsa', { bits: 256 }).private] },
      connection => {
        connection.on('authentication', ctx => {
          methods.push(ctx.method)
          ctx.reject()
        })
        connection.on('error', () => undefined)
      }
    )
    servers.push(impostor as unknown as Server)
    await new Promise<void>(resolve => impostor.listen(0, '127.0.0.1', resolve))
    relay.to((impostor.address() as AddressInfo).port)
    relay.drop()
    const stats = await started.done
    expect(stats).toMatchObject({ state: 'ended', reconnects: 0 })
    expect(stats.endReason).toMatch(
      new RegExp(
        `^the tunnel server's host key changed from ${escape(tunnel().fingerprint)} to SHA256:`
      )
    )
    expect(methods).toEqual([])
  })

  it('ends when the server refuses the credential on reconnecting', async () => {
    const credential = await provision()
    // The pauses between the refused reconnects (see reconnect.test.ts), a hundred times shorter.
    const sleep = (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms / 100))
    const started = startKeeper(credential, {}, { sleep })
    expect(await started.report).toMatchObject({ type: 'ready' })
    // Revoking closes the session; the reconnects are then refused.
    await revoke(credential.user)
    const stats = await started.done
    expect(stats).toMatchObject({
      state: 'ended',
      endedAt: expect.any(String),
      endReason: expect.stringContaining('refused the credential')
    })
    expect(started.stats()).toEqual(stats)
  })

  it('does not reconnect once the credential has expired', async () => {
    const credential = await provision()
    const relay = await startRelay()
    const started = startKeeper(credential, {
      port: relay.port,
      expiresAt: new Date(Date.now() + 400).toISOString()
    })
    expect(await started.report).toMatchObject({ type: 'ready' })
    await new Promise(resolve => setTimeout(resolve, 500))
    relay.drop()
    expect(await started.done).toMatchObject({
      state: 'ended',
      endReason: `the credential expired at ${started.config.expiresAt}`
    })
  })

  it('stops at once when asked while waiting to reconnect', async () => {
    const relay = await startRelay()
    const started = startKeeper(await provision(), { port: relay.port })
    expect(await started.report).toMatchObject({ type: 'ready' })
    relay.drop()
    await eventually(started.log, log => log.includes('Connection lost'))
    started.keeper.stop()
    expect(await started.done).toMatchObject({ state: 'stopped', reconnects: 0 })
  })

  it('logs in with a private key file when given one instead of a token', async () => {
    const credential = await provision()
    const dir = mkdtempSync(join(tmpdir(), 'keeper-key-'))
    dirs.push(dir)
    const keyPath = join(dir, 'id_ed25519')
    writeFileSync(keyPath, ed25519KeyPair().private)
    const started = startKeeper(credential, { token: undefined, privateKeyPath: keyPath })
    // The stand-in takes passwords only, so the key is offered and refused.
    expect(await started.report).toMatchObject({ type: 'failed', cause: 'auth' })
    expect(
      tunnel()
        .loginAttempts()
        .filter(a => a.user === credential.user)
        .map(a => a.method)
    ).toContain('publickey')
  })
})

describe('the keeper against a server that holds back the SSH window', () => {
  it('keeps the data that waits for the window when the local app has closed', async () => {
    // A little more than one SSH window (2 MiB): the keeper reads it all from the app, which
    // then closes, while the last 8 KiB still wait for the window.
    const size = 2 * 1024 * 1024 + 8 * 1024
    const app = createServer(socket => socket.end(Buffer.alloc(size, 120)))
    servers.push(app)
    await new Promise<void>(resolve => app.listen(0, '127.0.0.1', resolve))
    const hostKey = ed25519KeyPair()
    let received: Promise<number> | undefined
    const server = new ssh2.Server({ hostKeys: [hostKey.private] }, connection => {
      connection.on('authentication', ctx => ctx.accept())
      connection.on('request', (accept, _reject, name) => {
        if (name !== 'tcpip-forward') return
        accept?.()
        received = new Promise((resolve, reject) =>
          connection.forwardOut('big', 80, '127.0.0.1', 40000, (error, channel) => {
            if (error) return reject(error)
            // Not read for a while: the window stays shut, so the keeper holds the rest.
            channel.pause()
            let bytes = 0
            channel.on('data', (chunk: Buffer) => (bytes += chunk.length))
            channel.on('close', () => resolve(bytes))
            setTimeout(() => channel.resume(), 1_000)
          })
        )
      })
      connection.on('error', () => undefined)
    })
    servers.push(server as unknown as Server)
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    const started = startKeeper(
      { user: 'window', token: 'tok_window' },
      {
        port: (server.address() as AddressInfo).port,
        entries: [{ name: 'big', host: '127.0.0.1', port: (app.address() as AddressInfo).port }]
      }
    )
    expect(await started.report).toMatchObject({ type: 'ready' })
    await eventually(
      () => received,
      value => value !== undefined
    )
    expect(await received).toBe(size)
  }, 20_000)
})

describe('the keeper against a server that asks keyboard-interactive questions', () => {
  it('answers every prompt with the token', async () => {
    const hostKey = ed25519KeyPair()
    const token = 'tok_keyboard'
    const server = new ssh2.Server({ hostKeys: [hostKey.private] }, connection => {
      connection.on('authentication', ctx => {
        if (ctx.method !== 'keyboard-interactive') return ctx.reject(['keyboard-interactive'])
        ctx.prompt([{ prompt: 'Token: ', echo: false }], answers =>
          answers[0] === token ? ctx.accept() : ctx.reject()
        )
      })
      connection.on('request', (accept, _reject, name) => {
        if (name === 'tcpip-forward') accept?.()
      })
      connection.on('error', () => undefined)
    })
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    const entries: ExposeEntry[] = [{ name: 'web', host: 'localhost', port: app.port }]
    const started = startKeeper(
      { user: 'kbd', token },
      { port: (server.address() as AddressInfo).port, entries }
    )
    expect(await started.report).toMatchObject({ type: 'ready' })
    started.keeper.stop()
    await started.done
    server.close()
  })
})
