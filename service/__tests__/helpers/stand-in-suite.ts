/**
 * The setup the tunnel stand-in's own tests share: a service with its tunnel (clock injected,
 * sessions checked every 20 ms), and ssh2 clients that log in, forward and answer, closed after
 * each test. Call useStandIn() once at the top of a test file.
 */
import { request } from 'node:http'
import ssh2, { type ClientChannel, type ConnectConfig } from 'ssh2'
import { startCredentialService, type RunningService } from '../../server.js'

const { Client } = ssh2
type Client = InstanceType<typeof Client>

export interface Credential {
  user: string
  secret: string
}

export function useStandIn() {
  let clock = Date.now()
  let service: RunningService
  const clients: Client[] = []
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
    const body = (await response.json()) as {
      tunnel_client_id: string
      tunnel_client_secret: string
    }
    return { user: body.tunnel_client_id, secret: body.tunnel_client_secret }
  }

  async function revoke(user: string): Promise<void> {
    await fetch(`${service.baseUrl}/revoke-token`, {
      method: 'POST',
      headers: { 'x-api-key': service.seed.provisionKey },
      body: JSON.stringify({ tunnel_user: user })
    })
  }

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

  return {
    service: () => service,
    tunnel,
    clients,
    /** Moves the service's clock. */
    tick: (ms: number) => {
      clock += ms
    },
    provision,
    free,
    revoke,
    connect,
    forward,
    serveForwards,
    get,
    closed,
    authFailure,
    statusOf,
    eventsOf
  }
}
