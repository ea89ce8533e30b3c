/**
 * The HAR's list of the tunnel's own answers under a flood of refusals: the file stays valid and
 * under its cap, keeps the latest answers and the app's entries, and says how many answers went.
 */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { HarWriter } from '../../../../src/core/tunnel/request-log/har-file.js'
import { aRecord, aTempDir, publicBaseUrl, readValidHar } from './records.js'

const refusal = (index: number) =>
  aRecord({
    target: `/probe/${index}`,
    status: 401,
    outcome: 'refused',
    tunnelAnswered: true,
    responseHeaders: [['WWW-Authenticate', 'Basic realm="tunnel-credentials gate"']]
  })

it('keeps the latest answers within its budget, and the entries, under the cap', async () => {
  const dir = aTempDir()
  const harPath = join(dir, 'requests.har')
  const maxBytes = 100_000
  const writer = await HarWriter.open({
    harPath,
    spoolPath: join(dir, 'requests.spool'),
    publicBaseUrl,
    creatorVersion: 'test',
    redaction: { headers: 'redacted', logBodies: false, secrets: [] },
    maxBytes,
    debounceMs: 1
  })
  for (let index = 0; index < 2_000; index++) {
    writer.record(refusal(index))
    if (index % 500 === 0) {
      writer.record(aRecord({ target: `/page/${index}` }))
      await writer.flush()
      // Valid at any moment: after an append of answers alone, and of entries with them.
      await readValidHar(harPath)
    }
  }
  await writer.close()
  const har = await readValidHar(harPath)
  expect(statSync(harPath).size).toBeLessThanOrEqual(maxBytes)
  expect(har.log.entries.map(entry => new URL(entry.request.url).pathname)).toEqual([
    '/page/0',
    '/page/500',
    '/page/1000',
    '/page/1500'
  ])
  const kept = har.log._tunnelAnswers.map(entry => new URL(entry.request.url).pathname)
  expect(kept.at(-1)).toBe('/probe/1999')
  expect(har.log._tunnelAnswersDropped).toBe(2_000 - kept.length)
  expect(kept.length).toBeGreaterThan(0)
  // Counted all the same.
  expect(writer.tally.toJSON().byClass).toEqual({ '2xx': 4, refused: 2_000 })
})
