/**
 * The edge mode: Debian's Caddy in front of the tunnel stand-in's HTTP front, as the real
 * server's reference deployment puts it. A client speaks https (HTTP/2 or HTTP/1.1) to the
 * edge, trusting only the edge's own CA; the tunnel client (ssh2's Client, logged in with a
 * provisioned credential) passes each forwarded channel to a real HTTP app, which records what
 * reached it. Clients connect from 127.0.0.2 or 127.0.0.3, so the address the edge reports and
 * the edge's own address (127.0.0.1) can be told apart.
 */
import { existsSync, readFileSync } from 'node:fs'
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { connect as http2Connect } from 'node:http2'
import { request as httpsRequest } from 'node:https'
import { connect as netConnect, type AddressInfo } from 'node:net'
import { connect as tlsConnect } from 'node:tls'
import ssh2 from 'ssh2'
import { launchChromium } from '../../__tests__/helpers/edge-browser.js'
import { caddyMissingMessage, startEdge, type RunningEdge } from '../edge/caddy.js'
import { startCredentialService, type RunningService } from '../server.js'

const { Client } = ssh2

interface Seen {
  httpVersion: string
  headers: IncomingHttpHeaders
}

let service: RunningService
let edge: RunningEdge
let client: InstanceType<typeof Client>
let appServer: ReturnType<typeof createServer>
let label: string
const seen: Seen[] = []
/** The originator address of each channel the stand-in opened to the tunnel client. */
const originators: string[] = []

beforeAll(async () => {
  service = await startCredentialService({ tunnel: true })
  edge = await startEdge({ upstreamPort: service.tunnel!.frontPort })
  appServer = createServer((req, res) => {
    seen.push({ httpVersion: req.httpVersion, headers: req.headers })
    res.end('hello from the app\n')
  })
  await new Promise<void>(resolve => appServer.listen(0, '127.0.0.1', resolve))
  const appPort = (appServer.address() as AddressInfo).port

  const answer = await fetch(`${service.baseUrl}/credential-provision`, {
    method: 'POST',
    headers: { 'x-api-key': service.seed.provisionKey },
    body: JSON.stringify({ project: service.seed.project })
  })
  const credential = (await answer.json()) as { token: string; tunnel_user: string }
  label = `app-${credential.tunnel_user}`
  client = new Client()
  client.on('tcp connection', (details, accept) => {
    originators.push(details.srcIP)
    const channel = accept()
    const app = netConnect(appPort, '127.0.0.1')
    channel.pipe(app).pipe(channel)
    // As `ssh -R` does: the app's connection closing closes the channel, not only its half, so
    // the front never sends a request into a channel whose app has gone (the app's keep-alive
    // timeout ends idle connections after 5 s).
    app.on('close', () => channel.close())
    channel.on('close', () => app.destroy())
  })
  await new Promise<void>((resolve, reject) => {
    client.once('ready', resolve).once('error', reject)
    client.connect({
      host: '127.0.0.1',
      port: service.tunnel!.port,
      username: credential.tunnel_user,
      password: credential.token
    })
  })
  await new Promise<void>((resolve, reject) =>
    client.forwardIn('app', 80, error => (error === undefined ? resolve() : reject(error)))
  )
}, 60_000)

afterAll(async () => {
  client?.end()
  await edge?.stop()
  await new Promise(resolve => appServer?.close(resolve))
  await service?.close()
})

const publicHost = () => `${label}.${edge.publicDomain}`
const ca = () => readFileSync(edge.caFile, 'utf8')
// Sent by the client: the edge must not pass them on as the client's address.
const forged = { 'x-forwarded-for': '203.0.113.9', 'x-real-ip': '203.0.113.9' }

function getHttp1(
  localAddress: string
): Promise<{ protocol: string; status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port: edge.port,
        servername: publicHost(),
        path: '/one',
        localAddress,
        ca: ca(),
        agent: false,
        headers: { host: `${publicHost()}:${edge.port}`, ...forged }
      },
      res => {
        let body = ''
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
        res.on('end', () =>
          resolve({
            protocol: `HTTP/${res.httpVersion}`,
            status: res.statusCode ?? 0,
            body
          })
        )
      }
    )
    req.on('error', reject)
    req.end()
  })
}

function getHttp2(
  localAddress: string
): Promise<{ protocol: string; status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const session = http2Connect(`https://${publicHost()}:${edge.port}`, {
      createConnection: () =>
        tlsConnect({
          socket: netConnect({ host: '127.0.0.1', port: edge.port, localAddress }),
          servername: publicHost(),
          ca: ca(),
          ALPNProtocols: ['h2']
        })
    })
    session.on('error', reject)
    const stream = session.request({ ':path': '/two', ...forged })
    let status = 0
    let body = ''
    stream.on('response', headers => (status = Number(headers[':status'])))
    stream.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
    stream.on('end', () => {
      const protocol = String(session.alpnProtocol)
      session.close()
      resolve({ protocol, status, body })
    })
    stream.on('error', reject)
    stream.end()
  })
}

describe('the edge in front of the tunnel stand-in', () => {
  it('over HTTP/1.1: the app gets the edge headers and the internal Host; the channel comes from the edge', async () => {
    const before = seen.length
    const answer = await getHttp1('127.0.0.2')
    expect(answer).toEqual({ protocol: 'HTTP/1.1', status: 200, body: 'hello from the app\n' })
    const { httpVersion, headers } = seen[before]
    expect(httpVersion).toBe('1.1')
    expect(headers.host).toBe(`${label}.${edge.internalDomain}`)
    expect(headers['x-forwarded-host']).toBe(`${publicHost()}:${edge.port}`)
    expect(headers['x-forwarded-proto']).toBe('https')
    expect(headers['x-real-ip']).toBe('127.0.0.2')
    expect(headers['x-forwarded-for']).toBe('127.0.0.2')
    // The channel's originator is the edge's connection to the front, not the public client.
    expect(originators.at(-1)).toBe('127.0.0.1')
  })

  it('over HTTP/2: the request reaches the app as HTTP/1.1, with the same rules', async () => {
    const before = seen.length
    const answer = await getHttp2('127.0.0.3')
    expect(answer).toEqual({ protocol: 'h2', status: 200, body: 'hello from the app\n' })
    const { httpVersion, headers } = seen[before]
    expect(httpVersion).toBe('1.1')
    expect(headers.host).toBe(`${label}.${edge.internalDomain}`)
    expect(headers['x-forwarded-host']).toBe(`${publicHost()}:${edge.port}`)
    expect(headers['x-forwarded-proto']).toBe('https')
    expect(headers['x-real-ip']).toBe('127.0.0.3')
    expect(headers['x-forwarded-for']).toBe('127.0.0.3')
    expect(originators.at(-1)).toBe('127.0.0.1')
  })

  it('serves only https on its port, and a certificate only its own CA vouches for', async () => {
    const plain = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: edge.port, headers: { host: publicHost() }, agent: false },
        res => (res.resume(), resolve(res.statusCode ?? 0))
      )
      req.on('error', reject)
      req.end()
    })
    expect(plain).toBe(400)
    const untrusted = await new Promise<string>(resolve => {
      const socket = tlsConnect({ host: '127.0.0.1', port: edge.port, servername: publicHost() })
      socket.once('secureConnect', () => (socket.end(), resolve('trusted')))
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(String(error.code)))
    })
    expect(untrusted).toBe('UNABLE_TO_GET_ISSUER_CERT_LOCALLY')
    expect(edge.spkiHashes()).toHaveLength(2)
  })
})

describe('a browser trusts the edge by its own means', () => {
  it('reaches the app through the edge over HTTP/2 with the edge trusted, and refuses it without', async () => {
    const trusting = await launchChromium(edge)
    try {
      const page = await trusting.newPage()
      const before = seen.length
      const response = await page.goto(edge.urlFor(label))
      expect(response?.status()).toBe(200)
      expect(await page.textContent('body')).toBe('hello from the app\n')
      // Run in the page, so written as text: the browser's own record of the protocol used.
      const protocol = await page.evaluate<string>(
        "performance.getEntriesByType('navigation')[0].nextHopProtocol"
      )
      expect(protocol).toBe('h2')
      expect(await response?.headerValue('alt-svc')).toBeNull()
      expect(seen[before].headers.host).toBe(`${label}.${edge.internalDomain}`)
      expect(seen[before].headers['x-forwarded-host']).toBe(`${publicHost()}:${edge.port}`)
    } finally {
      await trusting.close()
    }
    const plain = await launchChromium()
    try {
      const page = await plain.newPage()
      await expect(page.goto(edge.urlFor(label))).rejects.toThrow(/ERR_CERT_AUTHORITY_INVALID/)
    } finally {
      await plain.close()
    }
  }, 60_000)
})

describe('an edge for names right under localhost, the default domain of the stand-in', () => {
  it('gives each name its own certificate, which Node and Chromium accept', async () => {
    const local = await startEdge({
      upstreamPort: service.tunnel!.frontPort,
      publicDomain: 'localhost'
    })
    try {
      const url = local.urlFor(label)
      expect(url).toBe(`https://${label}.localhost:${local.port}/`)
      const byNode = await new Promise<string>((resolve, reject) => {
        const req = httpsRequest(
          {
            host: '127.0.0.1',
            port: local.port,
            servername: `${label}.localhost`,
            ca: readFileSync(local.caFile, 'utf8'),
            agent: false,
            headers: { host: `${label}.localhost:${local.port}` }
          },
          res => {
            let body = ''
            res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
            res.on('end', () => resolve(`${res.statusCode} ${body}`))
          }
        )
        req.on('error', reject)
        req.end()
      })
      expect(byNode).toBe('200 hello from the app\n')
      // No wildcard to pin: the browser trusts the CA's intermediate, which signs every name.
      expect(local.spkiHashes()).toHaveLength(1)
      const browser = await launchChromium(local)
      try {
        const response = await (await browser.newPage()).goto(url)
        expect(response?.status()).toBe(200)
      } finally {
        await browser.close()
      }
    } finally {
      await local.stop()
    }
  }, 60_000)
})

describe('starting and stopping the edge', () => {
  it('fails with the system packages message when Caddy is missing', async () => {
    await expect(startEdge({ upstreamPort: 1, program: '/nonexistent/caddy' })).rejects.toThrow(
      caddyMissingMessage()
    )
    expect(caddyMissingMessage()).toMatch(/missing: caddy\. .*apt-get install -y caddy/)
  })

  it('stops Caddy and removes its folder: CA, storage, config', async () => {
    const second = await startEdge({ upstreamPort: service.tunnel!.frontPort })
    expect(existsSync(second.caFile)).toBe(true)
    await second.stop()
    expect(existsSync(second.folder)).toBe(false)
    const refused = await new Promise<string>(resolve => {
      const socket = netConnect(second.port, '127.0.0.1')
      socket.once('connect', () => (socket.destroy(), resolve('connected')))
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(String(error.code)))
    })
    expect(refused).toBe('ECONNREFUSED')
  })
})
