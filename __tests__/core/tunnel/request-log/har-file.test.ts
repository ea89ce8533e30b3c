import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import {
  HarWriter,
  type HarWriterOptions
} from '../../../../src/core/tunnel/request-log/har-file.js'
import { readTally } from '../../../../src/core/tunnel/request-log/tally.js'
import { aRecord, aTempDir, publicBaseUrl, readValidHar } from './records.js'

function optionsIn(dir: string, overrides: Partial<HarWriterOptions> = {}): HarWriterOptions {
  return {
    harPath: join(dir, 'requests.har'),
    spoolPath: join(dir, 'requests.ndjson'),
    tallyPath: join(dir, 'requests.tally.json'),
    publicBaseUrl,
    creatorVersion: '1.2.3',
    redaction: { headers: 'redacted', logBodies: false, secrets: [] },
    ...overrides
  }
}

describe('the HAR file', () => {
  it('exists and passes har-validator as soon as the log is open, with no entries', async () => {
    const dir = aTempDir()
    const writer = await HarWriter.open(optionsIn(dir))
    const har = await readValidHar(join(dir, 'requests.har'))
    expect(har.log.version).toBe('1.2')
    expect(har.log.creator).toEqual({ name: 'tunnel-credentials', version: '1.2.3' })
    expect(har.log.entries).toEqual([])
    await writer.close()
  })

  it('holds the requests recorded, in order, and passes har-validator', async () => {
    const dir = aTempDir()
    const writer = await HarWriter.open(
      optionsIn(dir, { redaction: { headers: 'redacted', logBodies: true, secrets: [] } })
    )
    const binary = Buffer.from([0, 1, 2, 255, 254])
    writer.record(aRecord({ target: '/a?x=1', startedAt: Date.UTC(2024, 0, 1, 0, 0, 1) }))
    writer.record(
      aRecord({
        entry: 'hook',
        method: 'POST',
        target: '/events',
        requestHeaders: [['Content-Type', 'application/json']],
        requestBody: Buffer.from('{"event":"push"}'),
        status: 204,
        responseHeaders: [],
        startedAt: Date.UTC(2024, 0, 1, 0, 0, 2)
      })
    )
    writer.record(
      aRecord({ target: '/img', responseBody: binary, status: 502, outcome: 'forwarded' })
    )
    writer.record(aRecord({ target: '/admin', status: 401, outcome: 'refused' }))
    writer.record(aRecord({ status: 502, outcome: 'unreachable' }))
    writer.record(
      aRecord({
        method: '',
        target: '',
        httpVersion: '',
        requestHeaders: [],
        responseHeaders: [],
        status: undefined,
        outcome: 'not-http',
        client: undefined
      })
    )
    writer.record(aRecord({ entry: 'nameless', target: '/x y\u00e9', durationMs: -3 }))
    await writer.close()

    const har = await readValidHar(join(dir, 'requests.har'))
    const seen = har.log.entries.map(entry => [
      entry._entry,
      entry._tunnel,
      entry.request.method,
      entry.request.url,
      entry.response.status
    ])
    expect(seen).toEqual([
      ['web', 'forwarded', 'GET', 'https://web-abc.tunnel.example/a?x=REDACTED', 200],
      ['hook', 'forwarded', 'POST', 'https://hook-abc.tunnel.example/events', 204],
      ['web', 'forwarded', 'GET', 'https://web-abc.tunnel.example/img', 502],
      ['web', 'refused', 'GET', 'https://web-abc.tunnel.example/admin', 401],
      ['web', 'unreachable', 'GET', 'https://web-abc.tunnel.example/index.html', 502],
      ['web', 'not-http', '', 'https://web-abc.tunnel.example/', 0],
      ['nameless', 'forwarded', 'GET', 'http://unknown.invalid/x%20y%C3%A9', 200]
    ])
    const [first, post, image] = har.log.entries
    expect(first.startedDateTime).toBe('2024-01-01T00:00:01.000Z')
    expect(first._client).toBe('203.0.113.7:51234')
    expect(first.request.queryString).toEqual([{ name: 'x', value: 'REDACTED' }])
    expect(post.request.postData).toEqual({
      mimeType: 'application/json',
      text: '{"event":"push"}'
    })
    expect(Buffer.from(image.response.content.text!, 'base64')).toEqual(binary)
    expect(image.response.content.encoding).toBe('base64')
    expect(har.log.entries.every(entry => Object.values(entry.timings).every(t => t >= 0))).toBe(
      true
    )
    expect(har.log.entries[6].time).toBe(0)
  })

  it('is private to the user, and close leaves the HAR and the tally but not the spool', async () => {
    const dir = aTempDir()
    const writer = await HarWriter.open(optionsIn(dir))
    writer.record(aRecord())
    await writer.flush()
    expect(statSync(join(dir, 'requests.har')).mode & 0o777).toBe(0o600)
    expect(statSync(join(dir, 'requests.ndjson')).mode & 0o777).toBe(0o600)
    await writer.close()
    writer.record(aRecord({ target: '/after-close' }))
    await writer.close()
    expect(existsSync(join(dir, 'requests.ndjson'))).toBe(false)
    expect((await readValidHar(join(dir, 'requests.har'))).log.entries).toHaveLength(1)
    expect(readTally(join(dir, 'requests.tally.json'))?.total).toBe(1)
  })

  it('follows the records on its own within the debounce', async () => {
    const dir = aTempDir()
    const writer = await HarWriter.open(optionsIn(dir, { debounceMs: 20 }))
    writer.record(aRecord())
    writer.record(aRecord())
    await new Promise(resolve => setTimeout(resolve, 300))
    expect((await readValidHar(join(dir, 'requests.har'))).log.entries).toHaveLength(2)
    await writer.close()
  })

  it('reports a file it cannot write, and writes every record once it can again', async () => {
    const dir = aTempDir()
    const logDir = join(dir, 'log')
    mkdirSync(logDir)
    const errors: string[] = []
    const writer = await HarWriter.open(
      optionsIn(dir, { harPath: join(logDir, 'requests.har'), onError: m => errors.push(m) })
    )
    rmSync(logDir, { recursive: true })
    writer.record(aRecord({ target: '/one' }))
    await writer.flush()
    expect(errors).toHaveLength(1)
    expect(errors[0]).toContain(join(logDir, 'requests.har'))
    mkdirSync(logDir)
    writer.record(aRecord({ target: '/two' }))
    await writer.close()
    const har = await readValidHar(join(logDir, 'requests.har'))
    expect(har.log.entries.map(entry => new URL(entry.request.url).pathname)).toEqual([
      '/one',
      '/two'
    ])
    expect(readFileSync(join(logDir, 'requests.har'), 'utf8')).not.toContain('.tmp')
  })
})
