/**
 * One credential in several places at once, as jobs sharing a credential use it: by default the
 * tunnel stand-in takes several sessions of one credential, each with its own names; a name in
 * use is refused whichever session holds it; the forwards limit counts a tunnel user across its
 * sessions and is told on the session channel; and `oneSessionPerCredential` refuses the second
 * login as a server that allows one session would. Real OpenSSH clients where a user would run
 * one, ssh2's client where the test reads the server's console.
 */
import ssh2, { type ClientChannel } from 'ssh2'
import {
  getThroughFront,
  hasSsh,
  makeAskpass,
  startLocalApp,
  startSsh,
  waitForTunnel,
  type SshClient,
  type TunnelVariables
} from '../../scripts/openssh.js'
import { startCredentialService, type RunningService } from '../server.js'
import { SECOND_SESSION_REFUSAL } from '../tunnel/logins.js'
import { ed25519KeyPair } from './helpers/ed25519.js'
import { forward, login, provision, type Credential } from './helpers/tunnel-client.js'

type Client = InstanceType<typeof ssh2.Client>

const apps: Array<Awaited<ReturnType<typeof startLocalApp>>> = []
const services: RunningService[] = []
const sshClients: SshClient[] = []
const clients: Client[] = []
let askpass: ReturnType<typeof makeAskpass>

beforeAll(() => {
  if (!hasSsh()) throw new Error('these tests need the OpenSSH client at /usr/bin/ssh')
  askpass = makeAskpass()
})
afterEach(async () => {
  for (const client of clients.splice(0)) client.end()
  await Promise.all(sshClients.splice(0).map(client => client.stop()))
})
afterAll(async () => {
  await Promise.all([...apps, ...services].map(thing => thing.close()))
  askpass?.remove()
})

async function start(options: Parameters<typeof startCredentialService>[0] = {}) {
  const service = await startCredentialService({ tunnel: { checkIntervalMs: 50 }, ...options })
  services.push(service)
  return service
}

async function app(text: string): Promise<number> {
  const started = await startLocalApp(text)
  apps.push(started)
  return started.port
}

/** `ssh -N -R <name>:80:localhost:<port>` with the credential, as a job's step would run it. */
function openSsh(service: RunningService, credential: Credential, name: string, port: number) {
  const vars: TunnelVariables = {
    SVC_TUNNEL_TOKEN: credential.secret,
    SVC_TUNNEL_USER: credential.user,
    SVC_TUNNEL_HOST: '127.0.0.1',
    SVC_TUNNEL_PORT: String(service.tunnel!.port)
  }
  const client = startSsh(vars, askpass.path, {
    knownHostsPath: service.tunnel!.knownHostsPath,
    name,
    localPort: port
  })
  sshClients.push(client)
  return client
}

/** A logged-in ssh2 client with its session open: `said()` is what the server told it. */
async function withConsole(service: RunningService, credential: Credential) {
  const client = await login(service, credential)
  clients.push(client)
  let text = ''
  const stream = await new Promise<ClientChannel>((resolve, reject) =>
    client.shell(false, (error, channel) => (error ? reject(error) : resolve(channel)))
  )
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')))
  return { client, stream, said: () => text }
}

const host = (service: RunningService, name: string, user: string) =>
  `${name}-${user}.${service.naming.fqdn}`

describe('several sessions of one credential (the default)', () => {
  it('are all let in, each with its own names reaching its own app', async () => {
    const service = await start()
    const credential = await provision(service)
    const first = openSsh(service, credential, 'web-0', await app('job 0'))
    const second = openSsh(service, credential, 'web-1', await app('job 1'))
    const front = service.tunnel!.frontPort
    expect((await waitForTunnel(first, front, host(service, 'web-0', credential.user))).body).toBe(
      'job 0 (GET /)\n'
    )
    expect((await waitForTunnel(second, front, host(service, 'web-1', credential.user))).body).toBe(
      'job 1 (GET /)\n'
    )
    const sessions = service.tunnel!.sessions().filter(s => s.user === credential.user)
    expect(sessions.map(s => s.forwards).sort()).toEqual([['web-0'], ['web-1']])
  }, 30_000)

  it('refuse a name that another session of the credential holds, and keep the first', async () => {
    const service = await start()
    const credential = await provision(service)
    const first = openSsh(service, credential, 'web', await app('first'))
    await waitForTunnel(first, service.tunnel!.frontPort, host(service, 'web', credential.user))
    // ExitOnForwardFailure: OpenSSH leaves when its forward is refused.
    const second = openSsh(service, credential, 'web', await app('second'))
    expect(await second.exited).toBe(255)
    expect(second.stderr()).toContain('remote port forwarding failed for listen port 80')
    const label = `web-${credential.user}`
    expect(service.tunnel!.events().at(-1)).toMatchObject({
      user: credential.user,
      event: 'forward refused',
      detail: `${label} is already forwarded`
    })
    const answer = await getThroughFront(service.tunnel!.frontPort, `${label}.localhost`)
    expect(answer.body).toBe('first (GET /)\n')
    // A client that reads its session is told why.
    const third = await withConsole(service, credential)
    await expect(forward(third.client, 'web')).rejects.toThrow()
    expect(third.said()).toBe('Forward "web" refused: the name is in use by another tunnel\r\n')
  }, 30_000)
})

describe('the session channel', () => {
  it('is the server console: a shell is accepted and runs nothing', async () => {
    const service = await start()
    const session = await withConsole(service, await provision(service))
    session.stream.write('id\n')
    await new Promise(resolve => setTimeout(resolve, 200))
    expect(session.said()).toBe('')
  })

  it('tells a console opened after a refusal what the connection was refused, and counts it', async () => {
    const service = await start({ maxForwardsPerUser: 1 })
    const credential = await provision(service)
    const client = await login(service, credential)
    clients.push(client)
    await forward(client, 'a')
    expect(service.tunnel!.sessionChannels()).toBe(0)
    await expect(forward(client, 'b')).rejects.toThrow()
    // The client asks why only now, as the tunnel process does.
    let text = ''
    const stream = await new Promise<ClientChannel>((resolve, reject) =>
      client.shell(false, (error, channel) => (error ? reject(error) : resolve(channel)))
    )
    stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')))
    await new Promise(resolve => setTimeout(resolve, 200))
    expect(text).toBe(
      'Forward "b" refused: at most 1 forwards per tunnel user, across all its sessions\r\n'
    )
    expect(service.tunnel!.sessionChannels()).toBe(1)
  })
})

describe('maxForwardsPerUser', () => {
  it('counts a tunnel user across its sessions, and tells the refused session the limit', async () => {
    const service = await start({ maxForwardsPerUser: 3 })
    const credential = await provision(service)
    const one = await withConsole(service, credential)
    const two = await withConsole(service, credential)
    // Without a session the refusal is the same, and nothing is told.
    const quiet = await login(service, credential)
    clients.push(quiet)
    await forward(one.client, 'a')
    await forward(one.client, 'b')
    await forward(two.client, 'c')
    await expect(forward(two.client, 'd')).rejects.toThrow()
    await expect(forward(quiet, 'e')).rejects.toThrow()
    expect(two.said()).toBe(
      'Forward "d" refused: at most 3 forwards per tunnel user, across all its sessions\r\n'
    )
    expect(one.said()).toBe('')
    // Another credential has its own count.
    await forward(await login(service, await provision(service)), 'a')
  })

  it('is 5 by default', async () => {
    const service = await start()
    const credential = await provision(service)
    const client = await withConsole(service, credential)
    for (const name of ['a', 'b', 'c', 'd', 'e']) await forward(client.client, name)
    await expect(forward(client.client, 'f')).rejects.toThrow()
    expect(client.said()).toContain('at most 5 forwards per tunnel user')
  })

  it('must be a whole number of at least 1', async () => {
    await expect(start({ maxForwardsPerUser: 0 })).rejects.toThrow(
      'maxForwardsPerUser must be a whole number of at least 1: 0'
    )
  })
})

describe('oneSessionPerCredential', () => {
  it('refuses the login of a second concurrent session, with no reason, as OpenSSH sees it', async () => {
    const service = await start({ oneSessionPerCredential: true })
    const credential = await provision(service)
    const first = openSsh(service, credential, 'web-0', await app('job 0'))
    await waitForTunnel(first, service.tunnel!.frontPort, host(service, 'web-0', credential.user))

    const second = openSsh(service, credential, 'web-1', await app('job 1'))
    expect(await second.exited).toBe(255)
    expect(second.stderr()).toContain(`${credential.user}@127.0.0.1: Permission denied`)
    expect(service.tunnel!.events().at(-1)).toMatchObject({
      user: credential.user,
      event: 'refused',
      detail: SECOND_SESSION_REFUSAL
    })
    // A refused login is no use of the token.
    expect(service.tokens().find(t => t.tunnel_user === credential.user)?.usage_count).toBe(1)
    // Another credential is not held back.
    const other = await provision(service)
    const third = openSsh(service, other, 'web-0', await app('other'))
    await waitForTunnel(third, service.tunnel!.frontPort, host(service, 'web-0', other.user))

    // Once the first session ended, the credential logs in again.
    await first.stop()
    await new Promise(resolve => setTimeout(resolve, 100))
    const again = openSsh(service, credential, 'web-1', await app('job 1 again'))
    const answer = await waitForTunnel(
      again,
      service.tunnel!.frontPort,
      host(service, 'web-1', credential.user)
    )
    expect(answer.body).toBe('job 1 again (GET /)\n')
  }, 30_000)

  it('holds an uploaded SSH key to one session too', async () => {
    const service = await start({ oneSessionPerCredential: true })
    const pair = ed25519KeyPair()
    const upload = await fetch(`${service.baseUrl}/keys-upload`, {
      method: 'POST',
      headers: { 'x-api-key': service.seed.provisionKey },
      body: JSON.stringify({ public_key_ssh: pair.public, name: 'ci', client_id: 'runner-one' })
    })
    expect(upload.status).toBe(200)
    const connect = () => {
      const client = new ssh2.Client()
      clients.push(client)
      return new Promise<Client>((resolve, reject) => {
        client.on('ready', () => resolve(client))
        client.on('error', reject)
        client.connect({
          host: '127.0.0.1',
          port: service.tunnel!.port,
          username: 'runner-one',
          privateKey: pair.private
        })
      })
    }
    const first = await connect()
    await expect(connect()).rejects.toMatchObject({ level: 'client-authentication' })
    expect(service.tunnel!.events().at(-1)).toMatchObject({
      user: 'runner-one',
      event: 'refused',
      detail: SECOND_SESSION_REFUSAL
    })
    first.end()
    await new Promise(resolve => setTimeout(resolve, 100))
    await connect()
  })
})
