/**
 * The CLI's revoke reports what came through the tunnel on stdout: the counts with the request
 * log's path, and the tunnel's timeline, each in one line; and it keeps the request log, which
 * holds no secret. In this process, through main() as bin.ts calls it, on the files a tunnel
 * left (helpers/left-tunnel.ts); the packed CLI shows the same with the real tunnel process.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startCredentialService, type RunningService } from '../../service/server.js'
import { runCliInProcess } from '../helpers/in-process-cli.js'
import { leftTunnel, type LeftTunnelOptions } from '../helpers/left-tunnel.js'
import { commandsObeyedIn } from '../helpers/log-readers.js'

let service: RunningService
let work: string
beforeAll(async () => (service = await startCredentialService()))
afterAll(() => service.close())
beforeEach(() => (work = mkdtempSync(join(tmpdir(), 'cli-revoke-traffic-'))))
afterEach(() => rmSync(work, { recursive: true, force: true }))

const cli = (args: string[], extra: Record<string, string> = {}) =>
  runCliInProcess(args, {
    PATH: process.env.PATH,
    SVC_API_KEY: service.seed.provisionKey,
    SVC_BASE_URL: service.baseUrl,
    SVC_PROJECT: service.seed.project,
    SVC_VARIABLES_FILE: join(work, 'tunnel.env'),
    SVC_WORK_DIR: work,
    ...extra
  })

const stateFile = () => join(work, '.tunnel-credentials.json')
const defaultLog = () => join(work, 'requests.har')

/** A provision's state file, with a tunnel that left these files added to it. */
async function provisionedWithTunnel(options: Partial<LeftTunnelOptions>) {
  expect((await cli(['provision'])).code).toBe(0)
  const tunnel = await leftTunnel(work, { harPathFor: defaultLog, ...options })
  const content = JSON.parse(readFileSync(stateFile(), 'utf8'))
  Object.assign(content.values, tunnel.state)
  writeFileSync(stateFile(), JSON.stringify(content))
  return tunnel
}

it('prints the counts with the request log path and the timeline, and keeps the log', async () => {
  const tunnel = await provisionedWithTunnel({
    records: [{ status: 200 }, { status: 502, outcome: 'unreachable' }],
    timeline: {
      down: [],
      apps: {
        web: { unreachableMs: 3_000, longestMs: 2_000, firstForwardAt: '2026-11-23T10:00:05Z' }
      }
    }
  })
  const ran = await cli(['revoke'])
  expect(ran.code).toBe(0)
  expect(ran.stderr).toEqual([])
  const counts = ran.stdout.filter(line => line.includes(defaultLog()))
  expect(counts).toHaveLength(1)
  expect(counts[0]).toMatch(/\b2\b/)
  expect(ran.stdout).toContainEqual(expect.stringMatching(/web.*\b3 s\b.*\b2 s\b/))
  // The log stays after revoke; the tunnel's folder and the state file go.
  expect(existsSync(defaultLog())).toBe(true)
  expect(existsSync(tunnel.dir)).toBe(false)
  expect(existsSync(stateFile())).toBe(false)
  expect(commandsObeyedIn(ran.stdout)).toEqual([])
})

it('prints zero requests in the counts line', async () => {
  await provisionedWithTunnel({ records: [] })
  const ran = await cli(['revoke'])
  expect(ran.stdout.filter(line => line.includes(defaultLog()))).toHaveLength(1)
})

it('reads no counts when revoke names another request log than provision did, and says so', async () => {
  const tunnel = await provisionedWithTunnel({ records: [{ status: 200 }] })
  const other = join(work, 'other.har')
  const ran = await cli(['revoke', '--request-log', other])
  expect(ran.code).toBe(0)
  expect(ran.stderr).toEqual([expect.stringContaining(tunnel.harPath)])
  expect(ran.stdout.filter(line => line.includes('.har'))).toEqual([])
  expect(existsSync(tunnel.harPath)).toBe(true)
})
