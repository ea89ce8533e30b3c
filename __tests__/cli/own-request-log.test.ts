/**
 * Provision replaces a request log only when this tool wrote it (own-files.ts reads the start of
 * the file), so the request-log module must write a HAR whose start says so: the two are checked
 * against each other here, on files the module itself writes.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { isOwnRequestLog } from '../../src/cli/own-files.js'
import { HarWriter } from '../../src/core/tunnel/request-log/har-file.js'
import { aRecord, aTempDir, publicBaseUrl } from '../core/tunnel/request-log/records.js'

let dir: string
beforeEach(() => (dir = aTempDir()))
afterEach(() => rmSync(dir, { recursive: true, force: true }))

async function writtenLog(records: number): Promise<string> {
  const harPath = join(dir, 'requests.har')
  const writer = await HarWriter.open({
    harPath,
    spoolPath: join(dir, 'requests.spool'),
    tallyPath: join(dir, 'requests-tally.json'),
    publicBaseUrl,
    creatorVersion: '1.2.3',
    redaction: { headers: 'redacted', logBodies: false, secrets: [] }
  })
  for (let index = 0; index < records; index++) writer.record(aRecord())
  await writer.close()
  return harPath
}

it.each([0, 3])(
  'knows a request log the request-log module wrote (%i requests) as its own',
  async count => {
    expect(isOwnRequestLog(await writtenLog(count))).toBe(true)
  }
)

it('does not take a HAR of another tool for its own', async () => {
  const path = await writtenLog(1)
  const har = readFileSync(path, 'utf8').replace('"name":"tunnel-credentials"', '"name":"Firefox"')
  writeFileSync(path, har)
  expect(isOwnRequestLog(path)).toBe(false)
})

it('does not take a file that merely names this tool later on for its own', () => {
  const path = join(dir, 'notes.har')
  writeFileSync(
    path,
    JSON.stringify({
      log: { creator: { name: 'Chrome' }, comment: '"creator":{"name":"tunnel-credentials"' }
    })
  )
  expect(isOwnRequestLog(path)).toBe(false)
})
