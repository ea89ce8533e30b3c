/**
 * `--ca-file` / SVC_CA_FILE: the one way to add trust. Against the local service over https with a
 * throwaway certificate, as behind a TLS-inspecting proxy: without the file the service is not
 * trusted and nothing is provisioned; with it, provision and revoke both reach it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { main } from '../../src/cli/index.js'
import { startCredentialService, type RunningService } from '../../service/server.js'
import {
  makeThrowawayCertificate,
  type ThrowawayCertificate
} from '../../scripts/throwaway-certificate.js'

let certificate: ThrowawayCertificate
let service: RunningService
let work: string
beforeAll(async () => {
  certificate = makeThrowawayCertificate()
  service = await startCredentialService({ tls: { key: certificate.key, cert: certificate.cert } })
})
afterAll(async () => {
  await service?.close()
  certificate?.remove()
})
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'cli-ca-file-'))
  service.clearRequests()
})
afterEach(() => rmSync(work, { recursive: true, force: true }))

async function cli(args: string[], extra: Record<string, string> = {}) {
  const stdout: string[] = []
  const stderr: string[] = []
  const env = {
    PATH: process.env.PATH,
    SVC_API_KEY: service.seed.provisionKey,
    SVC_BASE_URL: service.baseUrl,
    SVC_PROJECT: service.seed.project,
    SVC_VARIABLES_FILE: join(work, 'tunnel.env'),
    ...extra
  }
  const code = await main(args, env, {
    stdout: line => stdout.push(line),
    stderr: line => stderr.push(line)
  })
  return { code, stdout, stderr }
}
const statusOf = (user: string) => service.tokens().find(t => t.tunnel_user === user)?.status

it('without --ca-file, a service whose CA is not trusted gets no request that provisions', async () => {
  const ran = await cli(['provision', '--max-attempts', '1'])
  expect(ran.code).toBe(1)
  expect(ran.stderr.join('\n')).toMatch(/self-signed certificate/)
  expect(service.tokens()).toEqual([])
})

it('with --ca-file (and SVC_CA_FILE), provision and revoke reach it over https', async () => {
  expect(service.baseUrl).toMatch(/^https:/)
  const provisioned = await cli(['provision', '--ca-file', certificate.certFile])
  expect(provisioned.code).toBe(0)
  const user = /Provisioned tunnel user (\w+)/.exec(provisioned.stdout.join('\n'))![1]
  expect(statusOf(user)).toBe('active')
  const revoked = await cli(['revoke'], { SVC_CA_FILE: certificate.certFile })
  expect(revoked.code).toBe(0)
  expect(statusOf(user)).toBe('revoked')
})

it('a --ca-file that holds no certificate: exit 1 naming it, nothing sent', async () => {
  const notPem = join(work, 'not.pem')
  writeFileSync(notPem, 'hello\n')
  const ran = await cli(['provision', '--ca-file', notPem])
  expect(ran.code).toBe(1)
  expect(ran.stderr).toEqual([
    `Error: --ca-file names ${notPem}, which holds no PEM certificate (-----BEGIN CERTIFICATE-----).`
  ])
  expect(service.requests()).toEqual([])
})
