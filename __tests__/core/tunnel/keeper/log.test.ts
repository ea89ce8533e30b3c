/**
 * The keeper's log has a bound: repeated local errors are summarised, the file has a size cap,
 * and the record still counts every error for post's summary line.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  KeeperLog,
  LocalErrorSummary,
  SUMMARY_EVERY_MS
} from '../../../../src/core/tunnel/keeper/log.js'
import {
  cleanUp,
  eventually,
  fakeClock,
  hostKey,
  runKeeper,
  startStandIn
} from '../../../helpers/ssh-stand-in.js'

let dir: string
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'keeper-log-'))))
afterEach(async () => {
  await cleanUp()
  rmSync(dir, { recursive: true, force: true })
})

describe('KeeperLog', () => {
  it('stops writing routine lines at its cap, says so once, and keeps room for the end', () => {
    const path = join(dir, 'tunnel.log')
    writeFileSync(path, 'x'.repeat(500))
    const log = new KeeperLog(path, fakeClock().now, 1_000)
    for (let i = 0; i < 100; i++) log.line(`routine line ${i}`)
    log.final('Ended: the credential expired')
    const text = readFileSync(path, 'utf8')
    expect(text.length).toBeLessThan(1_000 + 300)
    expect(text.match(/The log reached its cap/g)).toHaveLength(1)
    expect(text).toContain('routine line 0')
    expect(text).not.toContain('routine line 99')
    expect(text.trimEnd().split('\n').at(-1)).toMatch(/Z Ended: the credential expired$/)
  })
})

describe('LocalErrorSummary', () => {
  it('logs the first error, then one summary a minute of the ones after it', () => {
    const clock = fakeClock()
    const lines: string[] = []
    const summary = new LocalErrorSummary(line => lines.push(line), clock.now)
    for (let i = 0; i < 500; i++) summary.record('web', 'localhost:3000', 'ECONNREFUSED')
    summary.flush()
    expect(lines).toEqual(['web: could not reach localhost:3000 (ECONNREFUSED)'])
    clock.advance(SUMMARY_EVERY_MS)
    summary.flush()
    summary.record('web', 'localhost:3000', 'ECONNREFUSED')
    clock.advance(SUMMARY_EVERY_MS)
    summary.flush()
    // A quiet minute after that: the next error is logged in full again.
    clock.advance(SUMMARY_EVERY_MS)
    summary.flush()
    summary.record('web', 'localhost:3000', 'ECONNREFUSED')
    expect(lines).toEqual([
      'web: could not reach localhost:3000 (ECONNREFUSED)',
      'web: 499 more connections could not reach localhost:3000 (ECONNREFUSED) in the last 60 s',
      'web: 1 more connection could not reach localhost:3000 (ECONNREFUSED) in the last 60 s',
      'web: could not reach localhost:3000 (ECONNREFUSED)'
    ])
  })
})

describe('the keeper when the app is not listening', () => {
  it('counts every refused connection but logs a few lines', async () => {
    const count = 1000
    let failed = 0
    const server = await startStandIn({
      hostKeys: [hostKey('ed25519')],
      // Like public requests to an app that is not listening: each one a forwarded connection.
      forwarded: connection => {
        for (let i = 0; i < count; i++) {
          connection.forwardOut('web', 80, '203.0.113.7', 40000 + (i % 1000), error => {
            if (error) failed += 1
          })
        }
      }
    })
    const keeper = runKeeper(server.port, {
      // Nothing listens on the discard port here.
      entries: [{ name: 'web', host: '127.0.0.1', port: 9 }]
    })
    expect(await keeper.report).toMatchObject({ type: 'ready' })
    await eventually(
      () => failed,
      value => value === count
    )
    keeper.keeper.stop()
    const stats = await keeper.done
    expect(stats.localErrors).toBe(count)
    expect(keeper.stats().localErrors).toBe(count)
    const log = keeper.log()
    expect(log.length).toBeLessThan(2_000)
    expect(log).toContain('web: could not reach 127.0.0.1:9 (ECONNREFUSED)')
    expect(log).toMatch(
      new RegExp(
        `web: ${count - 1} more connections could not reach 127\\.0\\.0\\.1:9 \\(ECONNREFUSED\\) in the last \\d+ s`
      )
    )
  }, 30_000)
})
