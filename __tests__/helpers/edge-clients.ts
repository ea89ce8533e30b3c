/**
 * Clients of a tunnel URL served through the stand-in's edge (service/edge/caddy.ts), as users
 * point them at it: each trusts the edge's CA alone (no check turned off), and reaches the edge's
 * loopback port whatever port the URL names (a URL without a port means 443, where a real edge
 * listens). `from` picks the client's own loopback address, so the address the edge reports for
 * the client (127.0.0.2 by default) is told apart from the edge's own (127.0.0.1).
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { request } from 'node:https'
import type { RunningEdge } from '../../service/edge/caddy.js'
import type { Answer } from './gate-clients.js'

export const CLIENT_ADDRESS = '127.0.0.2'

/**
 * One request, as a browser or an HTTP library sends it: user info in the URL becomes
 * `Authorization: Basic`, never part of the target.
 */
export function sendThroughEdge(
  edge: RunningEdge,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer; from?: string } = {}
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
        port: edge.port,
        servername: parsed.hostname,
        localAddress: options.from ?? CLIENT_ADDRESS,
        ca: readFileSync(edge.caFile, 'utf8'),
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
    req.setTimeout(5000, () => req.destroy(new Error('no answer through the edge in 5 s')))
    req.on('error', reject)
    req.end(options.body)
  })
}

/** `curl -s ARGS… URL` through the edge, over HTTP/2: the status on the last line. */
export function curlThroughEdge(
  edge: RunningEdge,
  args: string[]
): Promise<{ status: number; body: string; version: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      'curl',
      [
        '-s',
        '--max-time',
        '5',
        '--http2',
        '--cacert',
        edge.caFile,
        '--interface',
        CLIENT_ADDRESS,
        '--connect-to',
        `::127.0.0.1:${edge.port}`,
        '-w',
        '\n%{http_version} %{http_code}',
        ...args
      ],
      (error, stdout) => {
        if (error) return reject(error)
        const cut = stdout.lastIndexOf('\n')
        const [version, status] = stdout.slice(cut + 1).split(' ')
        resolve({ status: Number(status), body: stdout.slice(0, cut), version })
      }
    )
  })
}
