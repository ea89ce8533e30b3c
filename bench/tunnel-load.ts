/**
 * The load the tunnel benchmark puts through a tunnel: a local HTTP app (what a job exposes)
 * with a large and a small answer, and the requests that reach it through the stand-in's front.
 * Every request goes to 127.0.0.1:<front port> with the public host name in `Host`, as a
 * browser resolving `<name>-<user>.localhost` would send it.
 */
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { performance } from 'node:perf_hooks'

/** 50 MiB, sent in 1 MiB writes that wait for the socket to drain. */
export const DOWNLOAD_BYTES = 50 * 1024 * 1024
const CHUNK = Buffer.alloc(1024 * 1024, 'tunnel-bench ')
const SMALL_ANSWER = 'ok\n'

export interface LocalApp {
  port: number
  close(): Promise<void>
}

/** `GET /download`: DOWNLOAD_BYTES of data; any other path: a three-byte answer. */
export async function startBenchApp(): Promise<LocalApp> {
  const server = createServer((req, res) => {
    if (req.url !== '/download') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': SMALL_ANSWER.length })
      res.end(SMALL_ANSWER)
      return
    }
    res.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': DOWNLOAD_BYTES
    })
    let sent = 0
    const more = (): void => {
      while (sent < DOWNLOAD_BYTES) {
        const size = Math.min(CHUNK.length, DOWNLOAD_BYTES - sent)
        sent += size
        if (!res.write(size === CHUNK.length ? CHUNK : CHUNK.subarray(0, size))) {
          res.once('drain', more)
          return
        }
      }
      res.end()
    }
    more()
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>(resolve => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

export interface FrontAnswer {
  status: number
  bytes: number
  ms: number
}

/**
 * One GET through the front on a fresh connection (the front routes a connection, and a
 * public URL's callers are mostly different clients); the body is counted, not kept.
 */
export function getThroughFront(
  frontPort: number,
  host: string,
  path: string
): Promise<FrontAnswer> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const req = request(
      { host: '127.0.0.1', port: frontPort, path, agent: false, headers: { host } },
      res => {
        let bytes = 0
        res.on('data', (chunk: Buffer) => (bytes += chunk.length))
        res.on('error', reject)
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, bytes, ms: performance.now() - started })
        )
      }
    )
    req.setTimeout(60_000, () => req.destroy(new Error(`no answer for ${host}${path} in 60 s`)))
    req.on('error', reject)
    req.end()
  })
}

/** Fails the benchmark when the tunnel did not carry the answer whole: the figure would lie. */
function expectWhole(answer: FrontAnswer, bytes: number, what: string): void {
  if (answer.status !== 200 || answer.bytes !== bytes) {
    throw new Error(
      `bench: ${what} through the tunnel answered ${answer.status} with ${answer.bytes} bytes, expected 200 with ${bytes}`
    )
  }
}

/** MB/s (10^6 bytes per second) of one DOWNLOAD_BYTES download. */
export async function downloadThroughput(frontPort: number, host: string): Promise<number> {
  const answer = await getThroughFront(frontPort, host, '/download')
  expectWhole(answer, DOWNLOAD_BYTES, 'the download')
  return DOWNLOAD_BYTES / 1e6 / (answer.ms / 1000)
}

/** The time of each of `count` small requests, one after another, in milliseconds. */
export async function smallRequestTimes(
  frontPort: number,
  host: string,
  count: number
): Promise<number[]> {
  const times: number[] = []
  for (let i = 0; i < count; i++) {
    const answer = await getThroughFront(frontPort, host, `/small/${i}`)
    expectWhole(answer, SMALL_ANSWER.length, 'a small request')
    times.push(answer.ms)
  }
  return times
}
