/** Request records as the HTTP layer makes them, and a real HAR consumer to check files with. */
import { createRequire } from 'node:module'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RequestRecord } from '../../../../src/core/tunnel/request-log/record.js'

const require = createRequire(import.meta.url)
// har-validator checks a document against the HAR 1.2 JSON schema; it rejects with the errors.
const harValidator = require('har-validator') as { har(data: unknown): Promise<unknown> }

export function aRecord(overrides: Partial<RequestRecord> = {}): RequestRecord {
  return {
    startedAt: Date.UTC(2024, 4, 1, 12, 0, 0),
    entry: 'web',
    client: '203.0.113.7:51234',
    method: 'GET',
    target: '/index.html',
    httpVersion: 'HTTP/1.1',
    requestHeaders: [
      ['Host', 'web-abc.tunnel.example'],
      ['Accept', '*/*']
    ],
    status: 200,
    responseHeaders: [['Content-Type', 'text/html']],
    durationMs: 12,
    bytesIn: 80,
    bytesOut: 300,
    outcome: 'forwarded',
    ...overrides
  }
}

export function aTempDir(): string {
  return mkdtempSync(join(tmpdir(), 'request-log-'))
}

export const BASE_URLS: Record<string, string> = {
  web: 'https://web-abc.tunnel.example',
  hook: 'https://hook-abc.tunnel.example/'
}

export function publicBaseUrl(entry: string): string | undefined {
  return BASE_URLS[entry]
}

export interface HarFile {
  log: {
    version: string
    creator: { name: string; version: string }
    comment?: string
    _dropped: { bodies: number; entries: number }
    entries: HarEntryJson[]
    /** The tunnel's own answers (gate, proof), apart from the app's. */
    _tunnelAnswers: HarEntryJson[]
    _tunnelAnswersDropped: number
  }
}

export interface HarEntryJson {
  startedDateTime: string
  time: number
  request: {
    method: string
    url: string
    headers: { name: string; value: string }[]
    queryString: { name: string; value: string }[]
    postData?: { mimeType: string; text: string; encoding?: string }
    bodySize: number
  }
  response: {
    status: number
    redirectURL: string
    headers: { name: string; value: string }[]
    content: { size: number; mimeType: string; text?: string; encoding?: string }
    bodySize: number
  }
  timings: { send: number; wait: number; receive: number }
  _entry: string
  _client?: string
  _edgeReportedClient?: string
  _tunnel: string
  connection?: string
}

/** Reads the HAR file, checks it with har-validator, and returns it. */
export async function readValidHar(path: string): Promise<HarFile> {
  const har = JSON.parse(readFileSync(path, 'utf8')) as HarFile
  await harValidator.har(har)
  return har
}

export { harValidator }
