/**
 * The load the tunnel benchmark puts through a tunnel: a local HTTP app (what a job exposes)
 * with a large and a small answer, and the requests that reach it through the stand-in's front.
 * Every request goes to 127.0.0.1:<front port> with the public host name in `Host`, as a
 * browser resolving `<name>-<user>.localhost` would send it. Three shapes of load: one request
 * per new connection (latency), one large download (throughput), and many small requests over
 * keep-alive connections in parallel (memory after many logged requests, 100 connections at once).
 */
import { Agent, createServer, request } from 'node:http'
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

export interface LoadOutcome {
  /** Each answered request's time, ms, from sending it to its last byte. */
  times: number[]
  /** Requests that got no whole 200 answer (error, timeout, other status, short body). */
  failures: number
  /** The first failure's message, for the report. */
  firstFailure?: string
}

/** One GET on a keep-alive agent: the time, or why it failed. */
function getOnAgent(
  agent: Agent,
  frontPort: number,
  host: string,
  path: string
): Promise<number | string> {
  return new Promise(resolve => {
    const started = performance.now()
    const req = request(
      { host: '127.0.0.1', port: frontPort, path, agent, headers: { host } },
      res => {
        let bytes = 0
        res.on('data', (chunk: Buffer) => (bytes += chunk.length))
        res.on('error', error => resolve(error.message))
        res.on('end', () =>
          resolve(
            res.statusCode === 200 && bytes === SMALL_ANSWER.length
              ? performance.now() - started
              : `answered ${res.statusCode} with ${bytes} bytes`
          )
        )
      }
    )
    req.setTimeout(30_000, () => req.destroy(new Error('no answer in 30 s')))
    req.on('error', error => resolve(error.message))
    req.end()
  })
}

/**
 * `total` small GETs over `connections` keep-alive connections, all open at once: each
 * connection sends its next request when the last one is answered, as a browser or an API test
 * does. Paths are numbered from `firstIndex`, with a query, as the request log sees real ones.
 */
export async function keepAliveLoad(
  frontPort: number,
  host: string,
  {
    connections,
    total,
    firstIndex = 0
  }: { connections: number; total: number; firstIndex?: number }
): Promise<LoadOutcome> {
  const outcome: LoadOutcome = { times: [], failures: 0 }
  let next = 0
  const worker = async (): Promise<void> => {
    // One agent per worker with one socket: `connections` connections, each reused.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      while (next < total) {
        const index = firstIndex + next++
        const result = await getOnAgent(agent, frontPort, host, `/small/${index}?n=${index}`)
        if (typeof result === 'number') outcome.times.push(result)
        else {
          outcome.failures += 1
          outcome.firstFailure ??= result
        }
      }
    } finally {
      agent.destroy()
    }
  }
  await Promise.all(Array.from({ length: connections }, worker))
  return outcome
}
