/**
 * The HAR the tunnel process writes, replayed: what was recorded whole reaches the app byte for
 * byte, and a body the log cut, did not keep, or never saw (chunked) is never sent as if whole.
 */
import { createServer, type Server } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { main } from '../../src/cli/index.js'
import { HarWriter } from '../../src/core/tunnel/request-log/har-file.js'
import type { RequestRecord } from '../../src/core/tunnel/request-log/record.js'

let app: Server
let appUrl: string
let arrived: { target: string; body: Buffer }[]
let work: string

beforeAll(async () => {
  app = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      arrived.push({ target: request.url ?? '', body: Buffer.concat(chunks) })
      response.end('ok')
    })
  })
  await new Promise<void>(resolve => app.listen(0, '127.0.0.1', resolve))
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`
})
afterAll(async () => {
  app.closeAllConnections()
  await new Promise(resolve => app.close(resolve))
})
beforeEach(() => {
  arrived = []
  work = mkdtempSync(join(tmpdir(), 'cli-replay-own-'))
})
afterEach(() => rmSync(work, { recursive: true, force: true }))

function post(target: string, headers: [string, string][], body?: Buffer, cut = false) {
  return {
    startedAt: Date.parse('2026-11-26T10:00:00Z'),
    entry: 'web',
    method: 'POST',
    target,
    httpVersion: 'HTTP/1.1',
    requestHeaders: [['Host', 'web-u1.tunnel.example.com'], ...headers],
    status: 200,
    responseHeaders: [],
    durationMs: 2,
    bytesIn: 100,
    bytesOut: 50,
    outcome: 'forwarded',
    ...(body && { requestBody: body, bodyTruncated: { request: cut, response: false } })
  } satisfies RequestRecord
}

async function writeHar(records: RequestRecord[], logBodies: boolean): Promise<string> {
  const harPath = join(work, 'requests.har')
  const writer = await HarWriter.open({
    harPath,
    spoolPath: join(work, 'requests.spool'),
    publicBaseUrl: () => 'https://web-u1.tunnel.example.com',
    creatorVersion: 'test',
    redaction: { headers: 'redacted', logBodies, secrets: [] }
  })
  for (const record of records) writer.record(record)
  await writer.close()
  return harPath
}

async function replay(har: string): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = []
  const terminal = {
    stdout: (line: string) => lines.push(line),
    stderr: (line: string) => lines.push(line)
  }
  const code = await main(['replay', har, '--to', appUrl], {}, terminal)
  return { code, lines }
}

it('sends a whole recorded body byte for byte, and no cut, unkept or chunked body', async () => {
  const whole = Buffer.from('{"event":"paid"}')
  const har = await writeHar(
    [
      post('/whole', [['Content-Length', String(whole.length)]], whole),
      post('/cut', [['Content-Length', '5000']], Buffer.alloc(16, 'a'), true)
    ],
    true
  )
  const ran = await replay(har)
  expect(arrived).toEqual([{ target: '/whole', body: whole }])
  expect(ran.code).toBe(1)
})

it('does not replay a POST whose body the default log never kept', async () => {
  const har = await writeHar(
    [
      post('/sized', [['Content-Length', '42']]),
      post('/chunked', [['Transfer-Encoding', 'chunked']]),
      post('/empty', [['Content-Length', '0']])
    ],
    false
  )
  const ran = await replay(har)
  expect(arrived.map(request => request.target)).toEqual(['/empty'])
  expect(ran.code).toBe(1)
})
