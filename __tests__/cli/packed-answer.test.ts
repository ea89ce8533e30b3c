/**
 * Issue 27 through the packed CLI (Node 20) with the real tunnel process: the URL a default run
 * hands out (`--url-template` empty) and the lines that say which rule formed it, in the spec's
 * shape and in the product's (the stand-in's answer reshaped by helpers/answer-proxy.ts), and a name
 * collision, which fails provision at once with one error that names the entry and says the name
 * may be in use, and leaves the first tunnel serving. The stand-in hands out a host name as its
 * tunnel_host, as a real service does.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { statusOf, useService } from '../e2e/helpers.js'
import { productShape, startAnswerProxy, type AnswerProxy } from '../helpers/answer-proxy.js'
import { expectNoSecretPrinted, fetchUrl, loadEnvFile, useCliJob } from './cli-job.js'

const service = useService({ tunnel: { checkIntervalMs: 100 }, tunnelHost: 'localhost' })
const job = useCliJob(service)
const expose = () => ['--expose', `web=${job.app().port}`]
let proxy: AnswerProxy
beforeAll(async () => (proxy = await startAnswerProxy(service().origin)))
afterAll(() => proxy.close())

it("provision with an empty --url-template hands out today's URL and says which rule formed it", async () => {
  const provisioned = await job.cli(['provision', ...expose(), '--prove-url', 'false'])
  expect(provisioned.code).toBe(0)
  const vars = loadEnvFile(join(job.work(), 'tunnel.env'))
  expect(vars.SVC_TUNNEL_URL).toBe(`https://web-${vars.SVC_TUNNEL_USER}.localhost`)
  const rule =
    'https://{name}-{user}.{host}, as --url-template is empty: the domain is the tunnel host (the answer has no tunnel_fqdn), ' +
    'and the name ends with the tunnel user (the answer has no append_user_to_subdomain)'
  expect(provisioned.stdout).toContain(`The public URLs are ${rule}.`)
  expect(provisioned.stdout).toMatch(
    new RegExp(`^ +URL rule: ${rule.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm')
  )
  expectNoSecretPrinted(provisioned, [vars.SVC_TUNNEL_TOKEN, service().seed.provisionKey])
  expect((await job.cli(['revoke'])).code).toBe(0)
}, 60_000)

it("provision with the product's answer says in a Notice line and the summary which rule formed the URL", async () => {
  proxy.reshape = productShape('cicd.eu1.tunnels.example', {
    append_user_to_subdomain: false,
    ownership_type: 'dedicated'
  })
  const env = job.env({ SVC_BASE_URL: proxy.baseUrl })
  const provisioned = await job.cli(['provision', ...expose(), '--prove-url', 'false'], env)
  expect(provisioned.code).toBe(0)
  const vars = loadEnvFile(join(job.work(), 'tunnel.env'))
  expect(vars.SVC_TUNNEL_URL).toBe('https://web.cicd.eu1.tunnels.example')
  const rule =
    "https://{name}.{fqdn}, as --url-template is empty: the domain is the answer's tunnel_fqdn (cicd.eu1.tunnels.example), " +
    "and the name is the entry's alone (append_user_to_subdomain: false)"
  expect(`${provisioned.stdout}\n${provisioned.stderr}`).toContain(`The public URLs are ${rule}.`)
  expect(provisioned.stdout).toContain(`URL rule: ${rule}`)
  expect(provisioned.stdout).toMatch(/^ +Ownership: dedicated$/m)
  expect(provisioned.stdout).toMatch(/^ +Expires at: no expiry$/m)
  expectNoSecretPrinted(provisioned, [vars.SVC_TUNNEL_TOKEN, service().seed.provisionKey])
  expect((await job.cli(['revoke'], env)).code).toBe(0)
  expect(statusOf(service(), vars.SVC_TUNNEL_USER)).toBe('revoked')
}, 60_000)

it('a second provision asking for a name in use fails at once, naming the entry; the first tunnel keeps serving', async () => {
  const template = `http://{name}-{user}.localhost:${service().tunnel!.frontPort}`
  const first = await job.cli(['provision', ...expose(), '--url-template', template])
  expect(first.code).toBe(0)
  const vars = loadEnvFile(join(job.work(), 'tunnel.env'))
  // Another job folder, holding the same credential: the same user, so the same host name.
  const other = mkdtempSync(join(tmpdir(), 'cli-job-other-'))
  try {
    const started = Date.now()
    const second = await job.cli(
      [
        'provision',
        ...expose(),
        '--url-template',
        template,
        '--credential',
        'existing',
        '--tunnel-user',
        vars.SVC_TUNNEL_USER,
        '--tunnel-host',
        vars.SVC_TUNNEL_HOST,
        '--tunnel-port',
        vars.SVC_TUNNEL_PORT,
        '--variables-file',
        join(other, 'tunnel.env'),
        '--work-dir',
        other
      ],
      job.env({ SVC_INPUT_TUNNEL_TOKEN: vars.SVC_TUNNEL_TOKEN, SVC_API_KEY: '' })
    )
    const took = Date.now() - started
    expect(second.code).toBe(1)
    const errors = second.stderr.split('\n').filter(line => line !== '')
    expect(errors).toHaveLength(1)
    // The stand-in says on its console that the name is taken; the option is named as set here.
    expect(errors[0]).toContain(
      'The tunnel did not start: the name web is taken on the tunnel server, by another job ' +
        'sharing this credential or by another tunnel. Give each job its own names in --expose,'
    )
    // At once: not three attempts of --timeout-seconds 5 each.
    expect(took).toBeLessThan(8_000)
    expectNoSecretPrinted(second, [vars.SVC_TUNNEL_TOKEN])
  } finally {
    rmSync(other, { recursive: true, force: true })
  }
  expect((await fetchUrl(service(), vars.SVC_TUNNEL_URL)).status).toBe(200)
  expect((await job.cli(['revoke'])).code).toBe(0)
  expect(statusOf(service(), vars.SVC_TUNNEL_USER)).toBe('revoked')
}, 90_000)
