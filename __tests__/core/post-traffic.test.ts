/**
 * Post's report of what came through the tunnel, through the in-memory host (named as on GitHub):
 * the request table from the counts the request log left, failures first, with the HAR's path;
 * zero requests in one line; the timeline in one line; and saved state that names files
 * elsewhere than this tool puts them, refused without reading them. The files are written by
 * the request-log module itself (helpers/left-tunnel.ts); provision-request-log.test.ts shows
 * the same with the real keeper.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { requestLogInTempRoot } from '../../src/core/tunnel/main/request-log-path.js'
import { SUMMARY_COLUMNS } from '../../src/core/tunnel/request-log/summary.js'
import { leftTunnel, type LeftTunnelOptions } from '../helpers/left-tunnel.js'
import { revokeWith } from '../helpers/memory-step.js'
import { readValidHar } from './tunnel/request-log/records.js'

let runnerTemp: string
beforeEach(() => (runnerTemp = mkdtempSync(join(tmpdir(), 'post-traffic-'))))
afterEach(() => rmSync(runnerTemp, { recursive: true, force: true }))

/** Where the in-memory host (run id 42) puts a tunnel's HAR, as the GitHub host does. */
const harBeside = (dir: string) => requestLogInTempRoot(runnerTemp, '42', dir)
const left = (options: Partial<LeftTunnelOptions> = {}) =>
  leftTunnel(runnerTemp, { harPathFor: harBeside, ...options })
const post = (state: Record<string, string>) =>
  revokeWith({}, state, { tempRoot: runnerTemp, tempRootName: 'RUNNER_TEMP' })

const statusColumn = SUMMARY_COLUMNS.indexOf('Status')
const pathColumn = SUMMARY_COLUMNS.indexOf('Path')

describe("post's request table", () => {
  it('shows failures first, then the others, with counts and the HAR path; the HAR stays', async () => {
    const tunnel = await left({
      records: [
        { target: '/first', status: 200 },
        { target: '/broken', status: 500 },
        { target: '/second', status: 201 },
        { target: '/gated', status: 401, outcome: 'refused' },
        { entry: 'api', target: '/down', status: 502, outcome: 'unreachable' }
      ]
    })
    const step = await post(tunnel.state)
    expect(step.warnings).toEqual([])
    const [requests] = step.outcome.requests!.summary
    expect(requests.columns.length).toBeGreaterThan(2)
    expect(requests.rows.map(row => row[pathColumn])).toEqual([
      '/broken',
      '/gated',
      '/down',
      '/first',
      '/second'
    ])
    expect(requests.rows.map(row => row[statusColumn])).toEqual(['500', '401', '502', '200', '201'])
    const lines = requests.lines!.join('\n')
    expect(lines).toContain(tunnel.harPath)
    // Counted by class and by entry.
    expect(lines).toMatch(/\b2xx 2\b/)
    expect(lines).toMatch(/\b5xx 1\b/)
    expect(lines).toMatch(/\bweb 4\b/)
    expect(lines).toMatch(/\bapi 1\b/)
    expect(step.outcome.requests!.countsLine).toContain(tunnel.harPath)
    // The folder (and the counts in it) goes; the HAR, outside it, stays for an upload step.
    expect(existsSync(tunnel.dir)).toBe(false)
    expect((await readValidHar(tunnel.harPath)).log.entries).toHaveLength(5)
  })

  it('says zero requests in one line, with the HAR path', async () => {
    const tunnel = await left({ records: [] })
    const step = await post(tunnel.state)
    const [requests] = step.outcome.requests!.summary
    expect(requests.rows).toEqual([])
    expect(requests.lines).toEqual([expect.stringContaining(tunnel.harPath)])
    expect(step.outcome.requests!.countsLine).toContain(tunnel.harPath)
  })

  it('still names the HAR when the tunnel process left no counts (killed before it wrote any)', async () => {
    const tunnel = await left({ records: [{ target: '/x' }] })
    rmSync(tunnel.tallyPath)
    const step = await post(tunnel.state)
    const [requests] = step.outcome.requests!.summary
    expect(requests.rows).toEqual([])
    expect(requests.lines).toEqual([expect.stringContaining(tunnel.harPath)])
  })

  it('has no request table with the log off, only the timeline', async () => {
    const tunnel = await left({ timeline: { down: [], apps: {} } })
    const step = await post(tunnel.state)
    expect(step.outcome.requests!.countsLine).toBeUndefined()
    expect(step.outcome.requests!.summary).toHaveLength(1)
    expect(step.outcome.requests!.tunnelLine).toEqual(expect.any(String))
    expect(step.outcome.requests!.summary[0].lines).toEqual([step.outcome.requests!.tunnelLine])
  })
})

describe("post's timeline line", () => {
  it("comes from the tunnel process's stats, with the longest outage", async () => {
    const tunnel = await left({
      records: [],
      timeline: {
        down: [
          { from: '2026-11-23T10:01:00.000Z', to: '2026-11-23T10:01:02.000Z', reason: 'a' },
          { from: '2026-11-23T10:02:00.000Z', to: '2026-11-23T10:02:12.000Z', reason: 'lost' }
        ],
        apps: {
          web: {
            unreachableMs: 3_000,
            longestMs: 2_000,
            firstForwardAt: '2026-11-23T10:00:05.000Z'
          }
        }
      }
    })
    const { outcome } = await post(tunnel.state)
    const line = outcome.requests!.tunnelLine!
    expect(line).toMatch(/\b14 s\b/)
    expect(line).toMatch(/\b12 s\b.*lost/)
    expect(line).toMatch(/web.*\b3 s\b.*\b2 s\b/)
    expect(outcome.requests!.summary.flatMap(table => table.lines ?? [])).toContain(line)
  })
})

describe('saved state that names the request log elsewhere', () => {
  /** A tally that reads well, with a count no real run here has. */
  const plantedTally = (path: string) =>
    writeFileSync(
      path,
      JSON.stringify({
        total: 777,
        byClass: { '2xx': 777 },
        byEntry: { planted: 777 },
        failures: [],
        latest: []
      })
    )

  it('is refused when the tally is outside the tunnel folder: that file is not read', async () => {
    const tunnel = await left({ records: [{ target: '/x' }] })
    const outside = join(runnerTemp, 'elsewhere.json')
    plantedTally(outside)
    const state = {
      ...tunnel.state,
      'request-log': JSON.stringify({ harPath: tunnel.harPath, tallyPath: outside })
    }
    const step = await post(state)
    expect(step.warnings).toEqual([expect.stringContaining(tunnel.harPath)])
    expect(step.outcome.requests?.countsLine).toBeUndefined()
    expect(JSON.stringify(step.outcome)).not.toContain('777')
    expect(JSON.stringify(step.outcome)).not.toContain('planted')
  })

  it.each([
    ['another file in the temp root', () => join(runnerTemp, 'other.har')],
    ['a file outside the temp root', () => '/etc/passwd'],
    ['a relative path', () => 'requests.har']
  ])(
    'is refused when the HAR is %s: no counts are read, the path is named only in the warning',
    async (_, path) => {
      const tunnel = await left({ records: [{ target: '/x' }] })
      plantedTally(tunnel.tallyPath)
      const named = path()
      const state = {
        ...tunnel.state,
        'request-log': JSON.stringify({ harPath: named, tallyPath: tunnel.tallyPath })
      }
      const step = await post(state)
      expect(step.warnings).toEqual([expect.stringContaining(named)])
      expect(step.outcome.requests?.countsLine).toBeUndefined()
      expect(JSON.stringify(step.outcome)).not.toContain('777')
      // The tunnel was still dealt with: its folder is gone.
      expect(existsSync(tunnel.dir)).toBe(false)
    }
  )

  it('is refused when it is no JSON at all', async () => {
    const tunnel = await left({ records: [] })
    const step = await post({ ...tunnel.state, 'request-log': '::stop-commands::x' })
    expect(step.warnings).toHaveLength(1)
    expect(step.outcome.requests?.countsLine).toBeUndefined()
  })
})
