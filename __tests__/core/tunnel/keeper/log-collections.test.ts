/**
 * The request log's memory bound rests on full collections now and then (KeeperIo.collectOld):
 * each logged request leaves garbage that V8 would otherwise let pile up in the old generation.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { COLLECT_OLD_EVERY_REQUESTS } from '../../../../src/core/tunnel/keeper/io.js'
import { cleanUp } from '../../../helpers/ssh-stand-in.js'
import { startHttpTunnel, startTestApp, type TestApp } from '../../../helpers/http-tunnel.js'

let app: TestApp
let dir: string

beforeAll(async () => (app = await startTestApp()))
afterAll(async () => {
  await cleanUp()
  await app.close()
  rmSync(dir, { recursive: true, force: true })
})

it('starts a full collection every so many logged requests, and none without the log', async () => {
  dir = mkdtempSync(join(tmpdir(), 'log-collections-'))
  const entries = [{ name: 'web', host: '127.0.0.1', port: app.port }]
  let logged = 0
  const withLog = await startHttpTunnel(
    entries,
    'none',
    {
      requestLog: { enabled: true, bodyBytes: 0, headers: 'redacted' },
      requestLogFiles: {
        harPath: join(dir, 'requests.har'),
        spoolPath: join(dir, 'requests.spool'),
        tallyPath: join(dir, 'requests.tally.json')
      }
    },
    { collectOld: () => (logged += 1) }
  )
  let unlogged = 0
  const withoutLog = await startHttpTunnel(
    entries,
    'none',
    { requestLog: { enabled: false, bodyBytes: 0, headers: 'redacted' } },
    { collectOld: () => (unlogged += 1) }
  )
  const requests = 2 * COLLECT_OLD_EVERY_REQUESTS + 10
  for (const tunnel of [withLog, withoutLog]) {
    const agent = new Agent({ keepAlive: true, maxSockets: 8 })
    const one = () =>
      new Promise<number>((resolve, reject) => {
        const sent = request(
          { port: tunnel.frontPort, path: '/', agent, headers: { host: tunnel.hostFor('web') } },
          answer => answer.resume().on('end', () => resolve(answer.statusCode ?? 0))
        )
        sent.on('error', reject).end()
      })
    const statuses = await Promise.all(Array.from({ length: requests }, one))
    agent.destroy()
    expect(statuses.every(status => status === 200)).toBe(true)
  }
  // A record is made when its exchange is over: give the last ones a turn.
  await new Promise(resolve => setTimeout(resolve, 200))
  expect(logged).toBe(2)
  expect(unlogged).toBe(0)
  await withLog.service.close()
  await withoutLog.service.close()
}, 60_000)
