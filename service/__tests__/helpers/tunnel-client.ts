/**
 * A tunnel client for the stand-in's own tests, on ssh2's Client: provision a credential, log in,
 * ask for `-R <name>:80`, and pipe every forwarded channel to a local HTTP app that says which app
 * it is, as `ssh -R` would.
 */
import { createServer, type Server } from 'node:http'
import { connect as connectTcp, type AddressInfo } from 'node:net'
import ssh2 from 'ssh2'
import type { RunningService } from '../../server.js'

type Client = InstanceType<typeof ssh2.Client>

export interface Credential {
  user: string
  secret: string
}

/** A credential from credential-provision, in whichever shape the service answers. */
export async function provision(service: RunningService): Promise<Credential> {
  const response = await fetch(`${service.baseUrl}/credential-provision`, {
    method: 'POST',
    headers: { 'x-api-key': service.seed.provisionKey },
    body: JSON.stringify({ project: service.seed.project })
  })
  const body = (await response.json()) as Record<string, string>
  return {
    user: body.tunnel_user ?? body.tunnel_client_id,
    secret: body.token ?? body.tunnel_client_secret
  }
}

export function login(service: RunningService, credential: Credential): Promise<Client> {
  const client = new ssh2.Client()
  return new Promise((resolve, reject) => {
    client.on('ready', () => resolve(client))
    client.on('error', reject)
    client.connect({
      host: '127.0.0.1',
      port: service.tunnel!.port,
      username: credential.user,
      password: credential.secret,
      readyTimeout: 5000
    })
  })
}

export function forward(client: Client, name: string): Promise<void> {
  return new Promise((resolve, reject) =>
    client.forwardIn(name, 80, error => (error === undefined ? resolve() : reject(error)))
  )
}

export interface NamedApp {
  server: Server
  port: number
  /** Every request this app saw: `METHOD target`. */
  seen: string[]
  close(): Promise<void>
}

/** An HTTP app answering `<name>: METHOD target` to anything, kept-alive. */
export async function startNamedApp(name: string): Promise<NamedApp> {
  const seen: string[] = []
  const server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`)
    request.resume()
    request.on('end', () => {
      const body = `${name}: ${request.method} ${request.url}`
      response.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length })
      response.end(body)
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    server,
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>(resolve => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

/** Pipes every channel the server forwards to `client` into a fresh connection to `port`. */
export function serveWith(client: Client, port: number): void {
  client.on('tcp connection', (_details, accept) => {
    const channel = accept()
    const local = connectTcp(port, '127.0.0.1')
    local.on('error', () => channel.destroy())
    channel.on('error', () => local.destroy())
    channel.pipe(local).pipe(channel)
  })
}
