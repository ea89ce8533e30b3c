/**
 * Helpers of the `expose` part of `npm run demo` for what the tunnel process does with each
 * request: a local app that remembers what reached it, requests through the stand-in's front
 * with any method, headers and body, the request table of post's job summary as text, the HAR
 * kept as an upload-artifact step would keep it, and the bundled CLI's `replay` of that HAR.
 */
import { execFile } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { createServer, request, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { repoRoot, renderSummary } from './runner.js'

export interface Arrival {
  method: string
  target: string
  headers: IncomingHttpHeaders
  body: Buffer
}

/** A local app that answers 200 and keeps every request it got, as it got it. */
export async function startRecordingApp(text: string): Promise<{
  port: number
  arrivals: Arrival[]
  close(): Promise<void>
}> {
  const arrivals: Arrival[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const target = req.url ?? ''
      arrivals.push({
        method: req.method ?? '',
        target,
        headers: req.headers,
        body: Buffer.concat(chunks)
      })
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end(`${text} (${req.method} ${target})\n`)
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    arrivals,
    close: () =>
      new Promise<void>(resolve => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

export interface Sent {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

/**
 * A request to `url` as the public would send it, through the stand-in's front (which routes by
 * Host alone); the URL's host names itself in Host, its path and query are the target.
 */
export function sendThroughFront(
  frontPort: number,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {}
): Promise<Sent> {
  const { host, pathname, search } = new URL(url)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: frontPort,
        method: options.method ?? 'GET',
        path: `${pathname}${search}`,
        headers: { ...options.headers, host },
        agent: false
      },
      res => {
        let body = ''
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      }
    )
    req.setTimeout(5000, () => req.destroy(new Error('no answer from the front in 5 s')))
    req.on('error', reject)
    req.end(options.body)
  })
}

/** The request table of post's job summary as text: its rows, at most `maxRows` of them. */
export function requestTable(summaryHtml: string, maxRows = 6): string[] {
  const lines = renderSummary(summaryHtml).split('\n')
  const rows = lines.filter(line => line.startsWith('| '))
  const shown = rows.slice(0, maxRows)
  if (rows.length > shown.length) shown.push(`… ${rows.length - shown.length} more rows`)
  const rest = lines.filter(line => !line.startsWith('| ') && !line.startsWith('#'))
  return [...shown, ...rest.filter(line => /HAR|request/i.test(line))]
}

/**
 * Copies the HAR out of RUNNER_TEMP (which the job's end empties), as an `upload-artifact` step
 * would, into `DEMO_KEEP_DIR` or a new temporary folder; returns the copy's path.
 */
export function keepHar(harPath: string): string {
  const dir = process.env.DEMO_KEEP_DIR ?? mkdtempSync(join(tmpdir(), 'tunnel-credentials-demo-'))
  mkdirSync(dir, { recursive: true })
  const kept = join(dir, basename(harPath))
  copyFileSync(harPath, kept)
  return kept
}

/** The HAR's requests as method and URL; throws when it is not a HAR 1.2 document. */
export function harEntries(harPath: string): { method: string; url: string; status: number }[] {
  const har = JSON.parse(readFileSync(harPath, 'utf8')) as {
    log?: {
      version?: string
      entries?: { request: { method: string; url: string }; response: { status: number } }[]
    }
  }
  if (har.log?.version !== '1.2' || !Array.isArray(har.log.entries)) {
    throw new Error(`${harPath} is not a HAR 1.2 document`)
  }
  return har.log.entries.map(({ request: r, response }) => ({ ...r, status: response.status }))
}

/** `tunnel-credentials replay HAR --to URL` through the bundled CLI (dist/cli/index.cjs). */
export function replayWithCli(
  node: string,
  harPath: string,
  to: string
): Promise<{ code: number; output: string }> {
  const cli = join(repoRoot, 'dist', 'cli', 'index.cjs')
  return new Promise(resolve =>
    execFile(
      node,
      [cli, 'replay', harPath, '--to', to],
      { timeout: 30_000 },
      (error, stdout, stderr) =>
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1,
          output: `${stdout}${stderr}`.trim()
        })
    )
  )
}
