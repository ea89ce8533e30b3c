/**
 * Issue 26, item 11, as a command-line user meets it through main() (as bin.ts calls it): the
 * stderr line and the exit code of a switch given a word it does not take, and of a tunnel
 * option without --expose.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startCredentialService, type RunningService } from '../../service/server.js'
import { runCliInProcess } from '../helpers/in-process-cli.js'

let service: RunningService
let work: string
beforeAll(async () => (service = await startCredentialService()))
afterAll(() => service.close())
beforeEach(() => (work = mkdtempSync(join(tmpdir(), 'cli-messages-'))))
afterEach(() => rmSync(work, { recursive: true, force: true }))

const cli = (args: string[], extra: Record<string, string> = {}) =>
  runCliInProcess(args, {
    PATH: process.env.PATH,
    SVC_API_KEY: service.seed.provisionKey,
    SVC_BASE_URL: service.baseUrl,
    SVC_PROJECT: service.seed.project,
    SVC_VARIABLES_FILE: join(work, 'tunnel.env'),
    ...extra
  })

it('--protect yes: exit 2, one line naming --protect and its values, nothing sent', async () => {
  const requests = service.requests().length
  const ran = await cli(['provision', '--protect', 'yes'])
  expect(ran.code).toBe(2)
  expect(ran.stderr).toEqual([
    'Usage error: --protect takes true or false: write --protect alone or --protect true to turn it on, --protect false to turn it off. See tunnel-credentials --help.'
  ])
  expect(service.requests()).toHaveLength(requests)
})

it('--protect without --expose: a warning that it does nothing, and exit 0', async () => {
  const provisioned = await cli(['provision', '--protect'])
  expect(provisioned.code).toBe(0)
  expect(provisioned.stderr).toEqual([
    'Warning: --protect does nothing without --expose: no tunnel is opened in this step, so it is ignored.'
  ])
  expect((await cli(['revoke'])).code).toBe(0)
})

it('a tunnel option from its variable is named as the variable', async () => {
  const provisioned = await cli(['provision'], { SVC_LOG_BODIES: '1024' })
  expect(provisioned.code).toBe(0)
  expect(provisioned.stderr).toEqual([
    'Warning: SVC_LOG_BODIES does nothing without --expose: no tunnel is opened in this step, so it is ignored.'
  ])
  expect((await cli(['revoke'])).code).toBe(0)
})
