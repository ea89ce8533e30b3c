/**
 * Post on GitHub: the request table and the tunnel's line in GITHUB_STEP_SUMMARY, as the runner
 * renders it (HTML), from the files a tunnel left (helpers/left-tunnel.ts); the HAR stays in
 * RUNNER_TEMP for an upload step.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { requestLogInTempRoot } from '../../src/core/tunnel/main/request-log-path.js'
import { leftTunnel } from '../helpers/left-tunnel.js'
import { runInProcess } from '../helpers/in-process-step.js'
import { commandsObeyedIn } from '../helpers/log-readers.js'

const { runPost } = await import('../helpers/github-steps.js')

let runnerTemp: string
beforeEach(() => (runnerTemp = mkdtempSync(join(tmpdir(), 'post-summary-'))))
afterEach(() => rmSync(runnerTemp, { recursive: true, force: true }))

const runner = () => ({ RUNNER_TEMP: runnerTemp, GITHUB_RUN_ID: '7001' })
const harBeside = (dir: string) => requestLogInTempRoot(runnerTemp, '7001', dir)

it('appends the request table, failures first, with the HAR path, and the tunnel line', async () => {
  const tunnel = await leftTunnel(runnerTemp, {
    harPathFor: harBeside,
    records: [
      { target: '/fine', status: 200 },
      { target: '/<script>alert(1)</script>', status: 503 }
    ],
    timeline: { down: [], apps: {} }
  })
  const step = await runInProcess(runPost, {}, { state: tunnel.state, env: runner() })
  expect(step.failed).toBe(false)
  expect(step.warnings).toEqual([])
  const html = step.summary
  // A table with a header row of more than two columns.
  expect(html).toMatch(/<th>Time \(UTC\)<\/th><th>Entry<\/th>.*<th>Status<\/th>/)
  // The failure first; text from outside is escaped, never markup.
  expect(html.indexOf('503')).toBeLessThan(html.indexOf('/fine'))
  expect(html).not.toContain('<script>')
  expect(html).toContain(tunnel.harPath)
  expect(html).toMatch(
    /<h3>Tunnel<\/h3>\n<p>Tunnel: up [^;<]+, never down; 2 connections \(2 requests: /
  )
  expect(existsSync(tunnel.harPath)).toBe(true)
  expect(existsSync(tunnel.dir)).toBe(false)
  expect(commandsObeyedIn(step.lines)).toEqual([])
})

it('says zero requests in one line, with no table', async () => {
  const tunnel = await leftTunnel(runnerTemp, { harPathFor: harBeside, records: [] })
  const step = await runInProcess(runPost, {}, { state: tunnel.state, env: runner() })
  expect(step.summary).not.toContain('<table>')
  // The requests' section; the tunnel's own line follows under its own heading.
  const [requests, tunnelSection] = step.summary.split('<h3>Tunnel</h3>')
  expect(requests.match(/<p>/g)).toHaveLength(1)
  expect(tunnelSection).toMatch(/^\n<p>Tunnel: up [^<]*\(0 requests: /)
  expect(step.summary).toContain(tunnel.harPath)
})
