/**
 * The URL proof and the local app check through the packed CLI (Node 20) with the real tunnel
 * process: `provision --expose` with a url-template that forms URLs another server answers exits
 * 1 with one error naming url-template and what answered, and leaves no state, variables file,
 * tunnel folder or process, with the token revoked; `--prove-url false` accepts the template. An
 * entry whose app is not listening draws a Warning line, and provision still succeeds.
 */
import { existsSync, readdirSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { statusOf, useService } from '../e2e/helpers.js'
import {
  expectNoSecretPrinted,
  loadEnvFile,
  stillRunning,
  tunnelPid,
  useCliJob
} from './cli-job.js'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
const job = useCliJob(service)
let other: Server
let otherPort: number

beforeAll(async () => {
  // What a wrong url-template reaches: a server that answers 200 to anything, but is not us.
  other = createServer((_request, response) =>
    response.writeHead(200, { Server: 'someone-else/2.0' }).end('<h1>Welcome to nginx!</h1>')
  )
  await new Promise<void>(resolve => other.listen(0, '127.0.0.1', resolve))
  otherPort = (other.address() as AddressInfo).port
})
afterAll(() => new Promise(resolve => other?.close(resolve)))

const exposeWith = (template: string, expose = `app=${job.app().port}`) => [
  '--expose',
  expose,
  '--url-template',
  template
]
const rightTemplate = () => `http://{name}-{user}.localhost:${service().tunnel!.frontPort}`
const wrongTemplate = () => `http://{name}-{user}.localhost:${otherPort}`

it('provision --url-template <wrong> exits 1 with one error, leaves no state, variables file, folder or process; a fixed provision then succeeds', async () => {
  const provisioned = await job.cli(['provision', ...exposeWith(wrongTemplate())])
  expect(provisioned.code).toBe(1)
  const errors = provisioned.stderr.split('\n').filter(line => line !== '')
  expect(errors).toHaveLength(1)
  // Names the option to fix and what answered instead of the tunnel.
  expect(errors[0]).toContain('--url-template')
  expect(errors[0]).toContain('someone-else/2.0')
  expect(errors[0]).toContain('Welcome to nginx!')
  // Nothing for a later command: no state file, no variables file, no tunnel folder, and no
  // request log (the tunnel process had made it, empty, for this failed run alone).
  expect(readdirSync(job.work())).toEqual([])
  const tunnelLog = /, log (\S+)\)/.exec(provisioned.stdout)![1]
  expect(existsSync(dirname(tunnelLog))).toBe(false)
  expect(stillRunning(tunnelPid(provisioned))).toBe(false)
  expect(statusOf(service(), service().tokens().at(-1)!.tunnel_user)).toBe('revoked')
  expectNoSecretPrinted(provisioned, [service().seed.provisionKey])
  // The user fixes the template and provisions again in the same folder: nothing is in the way.
  const fixed = await job.cli(['provision', ...exposeWith(rightTemplate())])
  expect(fixed.code).toBe(0)
  expect((await job.cli(['revoke'])).code).toBe(0)
})

it('--prove-url false accepts the same url-template', async () => {
  const provisioned = await job.cli([
    'provision',
    ...exposeWith(wrongTemplate()),
    '--prove-url',
    'false'
  ])
  expect(provisioned.code).toBe(0)
  const vars = loadEnvFile(join(job.work(), 'tunnel.env'))
  expect(vars.SVC_TUNNEL_URL).toMatch(new RegExp(`^http://app-[^.]+\\.localhost:${otherPort}$`))
  const pid = tunnelPid(provisioned)
  expect(stillRunning(pid)).toBe(true)
  expect((await job.cli(['revoke'])).code).toBe(0)
  expect(stillRunning(pid)).toBe(false)
})

it('an entry whose app does not listen draws a Warning line naming it; provision succeeds', async () => {
  const closed = await new Promise<number>(resolve => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => resolve(port))
    })
  })
  const expose = `app=${job.app().port},later=${closed}`
  const provisioned = await job.cli(['provision', ...exposeWith(rightTemplate(), expose)])
  expect(provisioned.code).toBe(0)
  const warnings = provisioned.stderr.split('\n').filter(line => line.startsWith('Warning:'))
  expect(warnings).toHaveLength(1)
  expect(warnings[0]).toContain('"later"')
  expect(warnings[0]).toContain(`:${closed}`)
  expect(loadEnvFile(join(job.work(), 'tunnel.env')).SVC_TUNNEL_URL).toMatch(/^http:\/\/app-/)
  expect((await job.cli(['revoke'])).code).toBe(0)
})
