import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { createRequire } from 'node:module'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import {
  HarWriter,
  type HarWriterOptions
} from '../../../../src/core/tunnel/request-log/har-file.js'
import { aRecord, aTempDir, harValidator, publicBaseUrl, readValidHar } from './records.js'

function optionsIn(dir: string, overrides: Partial<HarWriterOptions> = {}): HarWriterOptions {
  return {
    harPath: join(dir, 'requests.har'),
    spoolPath: join(dir, 'requests.ndjson'),
    publicBaseUrl,
    creatorVersion: '1.2.3',
    redaction: { headers: 'redacted', logBodies: true, secrets: [] },
    ...overrides
  }
}

const numbered = (n: number, body = 1000) =>
  aRecord({ target: `/r${n}`, requestBody: Buffer.alloc(body, 'a'), responseHeaders: [] })

const numberOf = (url: string) => Number(new URL(url).pathname.slice(2))

describe('the size cap', () => {
  it('har-validator, the consumer these tests rely on, rejects what is not HAR', async () => {
    await expect(harValidator.har({ log: { version: '1.2', entries: [] } })).rejects.toThrow()
  })

  it('drops the oldest bodies first and says how many, staying within its bytes', async () => {
    const dir = aTempDir()
    const maxBytes = 20_000
    const writer = await HarWriter.open(optionsIn(dir, { maxBytes }))
    for (let n = 0; n < 20; n++) writer.record(numbered(n))
    await writer.close()
    const har = await readValidHar(join(dir, 'requests.har'))
    expect(statSync(join(dir, 'requests.har')).size).toBeLessThanOrEqual(maxBytes)
    expect(har.log.entries.map(entry => numberOf(entry.request.url))).toEqual(
      Array.from({ length: 20 }, (_, n) => n)
    )
    const withBody = har.log.entries.map(entry => (entry.request.postData?.text ?? '').length > 0)
    const firstKept = withBody.indexOf(true)
    expect(firstKept).toBeGreaterThan(0)
    // Bodies stay on the newest entries only, none dropped after one kept.
    expect(withBody.slice(firstKept).every(Boolean)).toBe(true)
    expect(har.log._dropped).toEqual({ bodies: firstKept, entries: 0 })
  })

  it('then drops the oldest entries, says how many, and keeps the newest', async () => {
    const dir = aTempDir()
    const maxBytes = 20_000
    const writer = await HarWriter.open(optionsIn(dir, { maxBytes }))
    for (let n = 0; n < 200; n++) {
      writer.record(numbered(n))
      if (n % 50 === 49) await writer.flush()
    }
    await writer.close()
    const har = await readValidHar(join(dir, 'requests.har'))
    expect(statSync(join(dir, 'requests.har')).size).toBeLessThanOrEqual(maxBytes)
    const kept = har.log.entries.map(entry => numberOf(entry.request.url))
    expect(kept.length).toBeGreaterThan(5)
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => 200 - kept.length + i))
    expect(har.log._dropped.entries).toBe(200 - kept.length)
    const withBody = har.log.entries.map(entry => Boolean(entry.request.postData?.text))
    const bodiesKept = withBody.filter(Boolean).length
    expect(withBody.slice(withBody.length - bodiesKept).every(Boolean)).toBe(true)
    expect(har.log._dropped.bodies).toBeGreaterThanOrEqual(kept.length - bodiesKept)
    expect(har.log.comment).toContain(String(200 - kept.length))
  })

  it('drops a single entry larger than the cap rather than exceed it', async () => {
    const dir = aTempDir()
    const writer = await HarWriter.open(
      optionsIn(dir, {
        maxBytes: 2_000,
        redaction: { headers: 'redacted', logBodies: false, secrets: [] }
      })
    )
    writer.record(aRecord({ requestHeaders: [['X-Big', 'b'.repeat(5_000)]] }))
    writer.record(aRecord({ target: '/small' }))
    await writer.close()
    const har = await readValidHar(join(dir, 'requests.har'))
    expect(har.log.entries.map(entry => new URL(entry.request.url).pathname)).toEqual(['/small'])
    expect(har.log._dropped.entries).toBe(1)
  })
})

describe('while it is written', () => {
  it('is valid HAR at every moment: a concurrent reader parses and validates every read', async () => {
    const dir = aTempDir()
    const harPath = join(dir, 'requests.har')
    const writer = await HarWriter.open(optionsIn(dir, { debounceMs: 1, maxBytes: 400_000 }))
    const require = createRequire(import.meta.url)
    // A thread of its own reads the file in a loop while this one writes.
    const reader = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads')
       const { readFileSync } = require('node:fs')
       const validator = require(workerData.validator)
       let reads = 0, bad = [], stop = false, biggest = 0
       parentPort.on('message', () => { stop = true })
       ;(async () => {
         while (!stop) {
           const text = readFileSync(workerData.path, 'utf8')
           try { const har = JSON.parse(text); await validator.har(har); biggest = Math.max(biggest, har.log.entries.length) }
           catch (error) { bad.push(String(error).slice(0, 200) + ' ' + text.slice(-80)) }
           reads++
           parentPort.postMessage({ read: reads })
           await new Promise(resolve => setImmediate(resolve))
         }
         parentPort.postMessage({ reads, bad: bad.slice(0, 3), biggest })
       })()`,
      { eval: true, workerData: { path: harPath, validator: require.resolve('har-validator') } }
    )
    let readsSoFar = 0
    const result = new Promise<{ reads: number; bad: string[]; biggest: number }>(resolve =>
      reader.on('message', (message: { read?: number }) => {
        if (message.read === undefined) resolve(message as never)
        else readsSoFar = message.read
      })
    )
    // Writing goes on until the reader has read many times while the file changed: on a busy
    // machine the thread may start late, and a few reads would prove little.
    const deadline = Date.now() + 30_000
    for (let n = 0; n < 2_000 || (readsSoFar < 20 && Date.now() < deadline); n++) {
      writer.record(numbered(n, 100))
      if (n % 20 === 0) await new Promise(resolve => setTimeout(resolve, 2))
    }
    await writer.close()
    reader.postMessage('stop')
    const { reads, bad, biggest } = await result
    await reader.terminate()
    expect(bad).toEqual([])
    expect(reads).toBeGreaterThan(10)
    expect(biggest).toBeGreaterThan(0)
    expect((await readValidHar(harPath)).log.entries.length).toBeGreaterThan(0)
  }, 60_000)
})

describe('memory', () => {
  // A collection on demand, so that heapUsed counts what is kept rather than garbage.
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void

  it('does not grow with the number of requests: 10,000 records hold a bounded heap and spool', async () => {
    const dir = aTempDir()
    const maxBytes = 1024 * 1024
    const writer = await HarWriter.open(optionsIn(dir, { maxBytes, debounceMs: 5 }))
    gc()
    const before = process.memoryUsage().heapUsed
    let peakSpool = 0
    for (let n = 0; n < 10_000; n++) {
      // 2 KB bodies: holding every entry would take over 30 MB.
      writer.record(numbered(n, 2_000))
      if (n % 500 === 499) {
        await writer.flush()
        peakSpool = Math.max(peakSpool, statSync(join(dir, 'requests.ndjson')).size)
      }
    }
    await writer.flush()
    gc()
    const grown = process.memoryUsage().heapUsed - before
    await writer.close()
    expect(grown).toBeLessThan(8 * 1024 * 1024)
    expect(peakSpool).toBeLessThanOrEqual(maxBytes)
    expect(readFileSync(join(dir, 'requests.har')).length).toBeLessThanOrEqual(maxBytes)
    expect(writer.tally.toJSON().total).toBe(10_000)
  }, 60_000)
})

describe('between rebuilds', () => {
  it('appends in order, and writes the file whole again when someone else changed it', async () => {
    const dir = aTempDir()
    const harPath = join(dir, 'requests.har')
    const writer = await HarWriter.open(optionsIn(dir, { debounceMs: 1 }))
    for (let n = 0; n < 3; n++) writer.record(numbered(n, 10))
    await writer.flush()
    for (let n = 3; n < 6; n++) writer.record(numbered(n, 10))
    await writer.flush()
    const appended = await readValidHar(harPath)
    expect(appended.log.entries.map(entry => numberOf(entry.request.url))).toEqual([
      0, 1, 2, 3, 4, 5
    ])
    // A file cut short by another process: appending to it would leave it broken.
    writeFileSync(harPath, readFileSync(harPath, 'utf8').slice(0, 100))
    writer.record(numbered(6, 10))
    await writer.close()
    const whole = await readValidHar(harPath)
    expect(whole.log.entries.map(entry => numberOf(entry.request.url))).toEqual([
      0, 1, 2, 3, 4, 5, 6
    ])
  })
})
