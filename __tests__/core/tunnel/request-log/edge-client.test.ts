/**
 * The client's address as an edge proxy reports it, in the HAR and in the summary, beside the
 * channel's originator: X-Real-IP, else the last hop of X-Forwarded-For, and never a value a
 * client could have written further to the left.
 */
import { join } from 'node:path'
import { HarWriter } from '../../../../src/core/tunnel/request-log/har-file.js'
import { requestSummary } from '../../../../src/core/tunnel/request-log/summary.js'
import { readTally } from '../../../../src/core/tunnel/request-log/tally.js'
import { aRecord, aTempDir, publicBaseUrl, readValidHar } from './records.js'

/** The HAR entry's two addresses for one request with these request fields. */
async function addressesLogged(
  fields: [string, string][],
  headers: 'redacted' | 'unredacted' = 'redacted'
): Promise<{ edge?: string; channel?: string; summaryCells: string[] }> {
  const dir = aTempDir()
  const writer = await HarWriter.open({
    harPath: join(dir, 'requests.har'),
    spoolPath: join(dir, 'requests.ndjson'),
    tallyPath: join(dir, 'requests.tally.json'),
    publicBaseUrl,
    creatorVersion: '1.2.3',
    redaction: { headers, logBodies: false, secrets: [] }
  })
  writer.record(
    aRecord({
      client: '10.1.2.3:40000',
      requestHeaders: [['Host', 'web-abc.tunnel.local'], ...fields]
    })
  )
  await writer.close()
  const [entry] = (await readValidHar(join(dir, 'requests.har'))).log.entries
  const summary = requestSummary(readTally(join(dir, 'requests.tally.json'))!, 'requests.har')
  const cell = (name: string) => summary.rows[0][summary.columns.indexOf(name)]
  return {
    edge: entry._edgeReportedClient,
    channel: entry._client,
    summaryCells: [cell('Client (edge-reported)'), cell('Channel from')]
  }
}

describe('the edge-reported client in the request log', () => {
  it('is X-Real-IP, beside the channel originator, in the HAR and in the summary', async () => {
    const logged = await addressesLogged([
      ['X-Forwarded-For', '192.0.2.66'],
      ['X-Real-IP', '198.51.100.23']
    ])
    expect(logged).toEqual({
      edge: '198.51.100.23',
      channel: '10.1.2.3:40000',
      summaryCells: ['198.51.100.23', '10.1.2.3:40000']
    })
  })

  it('is the last hop of X-Forwarded-For without X-Real-IP, across several fields', async () => {
    const logged = await addressesLogged([
      ['x-forwarded-for', '192.0.2.66, 192.0.2.67'],
      ['X-Forwarded-For', '192.0.2.68,2001:db8::7']
    ])
    expect(logged.edge).toBe('2001:db8::7')
    expect(logged.summaryCells).toEqual(['2001:db8::7', '10.1.2.3:40000'])
  })

  it.each([
    ['a last hop that is not an address', [['X-Forwarded-For', '192.0.2.66, unknown']]],
    ['an empty last hop', [['X-Forwarded-For', '192.0.2.66, ']]],
    ['a last hop with a port', [['X-Forwarded-For', '192.0.2.66, 198.51.100.23:443']]],
    ['an X-Real-IP that is not an address', [['X-Real-IP', '<script>x</script>']]],
    ['an IPv6 zone', [['X-Real-IP', 'fe80::1%eth0']]],
    [
      'an X-Real-IP that is not one address, beside a valid X-Forwarded-For',
      [
        ['X-Real-IP', '198.51.100.23, 198.51.100.24'],
        ['X-Forwarded-For', '198.51.100.25']
      ]
    ]
  ] as [string, [string, string][]][])(
    'is not recorded for %s, and no value to its left is taken',
    async (_case, fields) => {
      const logged = await addressesLogged(fields)
      expect(logged.edge).toBeUndefined()
      expect(logged.channel).toBe('10.1.2.3:40000')
      expect(logged.summaryCells).toEqual(['-', '10.1.2.3:40000'])
    }
  )

  it('is not recorded without an edge’s fields, whatever the redaction', async () => {
    for (const headers of ['redacted', 'unredacted'] as const) {
      const logged = await addressesLogged([['Accept', '*/*']], headers)
      expect(logged.edge).toBeUndefined()
      expect(logged.channel).toBe('10.1.2.3:40000')
    }
  })
})
