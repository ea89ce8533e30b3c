/**
 * What the end-to-end gate tests need on both hosts: an app that records every request exactly as
 * it arrived (target, headers, body bytes), and the clients a user points at a tunnel URL taken
 * from the step's outputs: curl (with a header line, or with a URL that holds user info) and a
 * plain HTTP request that sends a URL's user info as Basic credentials, as a browser does.
 * Tunnel URLs here are `http://NAME.localhost:FRONT_PORT`: curl resolves `.localhost` to the
 * loopback itself; the HTTP request connects to 127.0.0.1 with the URL's Host.
 */
import { execFile } from 'node:child_process'
import { createServer, request, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface SeenRequest {
  method: string
  target: string
  headers: IncomingHttpHeaders
  body: Buffer
}

export interface RecordingApp {
  port: number
  seen: SeenRequest[]
  close(): Promise<void>
}

/** Answers 200 `seen METHOD TARGET` to anything, after recording it. */
export async function startRecordingApp(): Promise<RecordingApp> {
  const seen: SeenRequest[] = []
  const server = createServer(async (req, res) => {
    const parts: Buffer[] = []
    for await (const part of req) parts.push(part as Buffer)
    seen.push({
      method: req.method!,
      target: req.url!,
      headers: req.headers,
      body: Buffer.concat(parts)
    })
    res.writeHead(200, { 'content-type': 'text/plain' })
    res.end(`seen ${req.method} ${req.url}\n`)
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>(resolve => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

export interface Answer {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

/**
 * One request to a tunnel URL, as a browser or an HTTP library sends it: user info in the URL
 * becomes `Authorization: Basic` (Node's fetch refuses such URLs), never part of the target.
 */
export function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer } = {}
): Promise<Answer> {
  const parsed = new URL(url)
  const headers: Record<string, string> = { host: parsed.host, ...options.headers }
  if (parsed.username !== '' || parsed.password !== '') {
    const userInfo = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`
    headers.authorization = `Basic ${Buffer.from(userInfo).toString('base64')}`
  }
  if (options.body !== undefined) headers['content-length'] = String(options.body.length)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: Number(parsed.port),
        method: options.method ?? 'GET',
        path: `${parsed.pathname}${parsed.search}`,
        headers,
        agent: false
      },
      res => {
        let body = ''
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      }
    )
    req.setTimeout(5000, () => req.destroy(new Error('no answer through the tunnel in 5 s')))
    req.on('error', reject)
    req.end(options.body)
  })
}

/** `curl -s ARGS… URL`: the status on the last line, the body before it. */
export function curl(args: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      'curl',
      ['-s', '--max-time', '5', '-w', '\n%{http_code}', ...args],
      (error, stdout) => {
        if (error) return reject(error)
        const cut = stdout.lastIndexOf('\n')
        resolve({ status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) })
      }
    )
  })
}

/** The header names the gate would have had to take off, as the app saw them. */
export const gateTraces = (request: SeenRequest): string[] =>
  Object.keys(request.headers).filter(name => ['x-tunnel-gate', 'authorization'].includes(name))
