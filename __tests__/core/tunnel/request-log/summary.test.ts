import * as core from '@actions/core'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { RequestRecord } from '../../../../src/core/tunnel/request-log/record.js'
import {
  requestCountsLine,
  requestSummary,
  SUMMARY_MAX_ROWS,
  type RequestSummary
} from '../../../../src/core/tunnel/request-log/summary.js'
import { readTally, RequestTally } from '../../../../src/core/tunnel/request-log/tally.js'
import { aRecord, aTempDir } from './records.js'

function tallyOf(records: RequestRecord[]) {
  const tally = new RequestTally()
  for (const record of records) tally.add(record)
  return tally.toJSON()
}

/** The summary as GitHub's host would append it: an HTML table of escaped cells. */
function rendered(summary: RequestSummary): string {
  const escape = (text: string) => text.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`)
  const html = core.summary
    .addHeading(summary.heading, 3)
    .addRaw(summary.lines.map(escape).join('<br>'))
    .addTable([
      summary.columns.map(column => ({ data: column, header: true })),
      ...summary.rows.map(row => row.map(escape))
    ])
    .stringify()
  core.summary.emptyBuffer()
  return html
}

const at = (second: number) => Date.UTC(2024, 4, 1, 12, 0, second)
const column = (summary: RequestSummary, name: string) => summary.columns.indexOf(name)

describe('the request summary', () => {
  it('says in one line that no request came, with the log’s path', () => {
    const summary = requestSummary(tallyOf([]), '/tmp/run/requests.har')
    expect(summary.lines).toHaveLength(1)
    expect(summary.lines[0]).toContain('/tmp/run/requests.har')
    expect(summary.rows).toEqual([])
  })

  it('shows failures first (5xx, refused, unreachable), then the others, each in time order', () => {
    const summary = requestSummary(
      tallyOf([
        aRecord({ target: '/ok1', startedAt: at(1) }),
        aRecord({ target: '/boom', status: 500, startedAt: at(2) }),
        aRecord({ target: '/ok2', status: 404, startedAt: at(3) }),
        aRecord({ target: '/gate', status: 401, outcome: 'refused', startedAt: at(4) }),
        aRecord({ target: '/down', status: 502, outcome: 'unreachable', startedAt: at(5) }),
        aRecord({ target: '/ok3', status: 302, startedAt: at(6) })
      ]),
      'requests.har'
    )
    const paths = summary.rows.map(row => row[column(summary, 'Path')])
    expect(paths).toEqual(['/boom', '/gate', '/down', '/ok1', '/ok2', '/ok3'])
    expect(summary.rows[0][column(summary, 'Time (UTC)')]).toBe('12:00:02.000')
    expect(summary.rows[0][column(summary, 'Status')]).toBe('500')
    expect(summary.rows.every(row => row.length === summary.columns.length)).toBe(true)
  })

  it('counts by status class and by entry, over every request', () => {
    const records = [
      ...Array.from({ length: 10 }, () => aRecord()),
      aRecord({ entry: 'hook', status: 404 }),
      aRecord({ entry: 'hook', status: 401, outcome: 'refused' }),
      aRecord({ status: undefined, outcome: 'not-http' })
    ]
    const text = requestSummary(tallyOf(records), 'requests.har').lines.join('\n')
    for (const count of ['13', '2xx 10', '4xx 1', 'refused 1', 'not HTTP 1', 'web 11', 'hook 2']) {
      expect(text).toContain(count)
    }
    const line = requestCountsLine(tallyOf(records), '/w/requests.har')
    expect(line.split('\n')).toHaveLength(1)
    for (const count of ['13', '2xx 10', '4xx 1', 'refused 1', '/w/requests.har']) {
      expect(line).toContain(count)
    }
    expect(requestCountsLine(tallyOf([]), 'r.har')).toContain('0')
  })

  it('is capped in rows and keeps room for the latest when failures abound', () => {
    const records = Array.from({ length: 5_000 }, (_, n) =>
      aRecord({ target: `/r${n}`, status: n % 3 === 0 ? 503 : 200, startedAt: at(0) + n })
    )
    const summary = requestSummary(tallyOf(records), 'requests.har')
    expect(summary.rows).toHaveLength(SUMMARY_MAX_ROWS)
    const paths = summary.rows.map(row => row[column(summary, 'Path')])
    expect(paths.at(-1)).toBe('/r4999')
    expect(paths.filter(path => Number(path.slice(2)) % 3 !== 0).length).toBeGreaterThanOrEqual(10)
    expect(summary.lines.join(' ')).toContain('5000')
  })

  it('stays far below GitHub’s 1 MiB summary limit however long and hostile the values', () => {
    const hostile = `::error::${'<&>'.repeat(5_000)}##[group]\n##vso[task.setvariable]`
    const records = Array.from({ length: 2_000 }, (_, n) =>
      aRecord({
        entry: `${hostile}${n % 30}`,
        client: hostile,
        method: hostile,
        target: `/${hostile}`,
        status: n % 2 ? 500 : 200
      })
    )
    const summary = requestSummary(tallyOf(records), `/tmp/${hostile}`)
    const html = rendered(summary)
    expect(html.length).toBeLessThan(256 * 1024)
    const cells = [...summary.lines, ...summary.rows.flat()]
    for (const cell of cells) {
      expect(cell).not.toMatch(/^\s*::|##\[|##vso\[|[\r\n]/)
    }
  })
})

describe('the tally file', () => {
  it('is read back as written, and anything else is no tally', () => {
    const dir = aTempDir()
    const tally = tallyOf([aRecord({ entry: '__proto__' }), aRecord({ status: 500 })])
    writeFileSync(join(dir, 'tally.json'), JSON.stringify(tally))
    expect(readTally(join(dir, 'tally.json'))).toEqual(JSON.parse(JSON.stringify(tally)))
    expect(requestSummary(readTally(join(dir, 'tally.json'))!, 'r.har').lines[1]).toContain(
      '__proto__ 1'
    )
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ ...tally, total: -1 }))
    expect(readTally(join(dir, 'bad.json'))).toBeUndefined()
    writeFileSync(join(dir, 'rows.json'), JSON.stringify({ ...tally, latest: [{ entry: 1 }] }))
    expect(readTally(join(dir, 'rows.json'))).toBeUndefined()
    expect(readTally(join(dir, 'missing.json'))).toBeUndefined()
  })

  it('shows an outcome it does not know as text, and a time no date holds as a dash', () => {
    const tally = tallyOf([aRecord()])
    tally.latest[0] = { ...tally.latest[0], outcome: 'constructor' as never, startedAt: 1e20 }
    const [row] = requestSummary(tally, 'r.har').rows
    expect(row).toContain('constructor')
    expect(row[0]).toBe('-')
  })
})
