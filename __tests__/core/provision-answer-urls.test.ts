/**
 * Main with `expose` and an empty url-template, against the local service and its tunnel
 * stand-in (issue 27): the URL a default run hands out, the notice and the summary that say which
 * rule formed it, in the spec's shape and in the product's. The product's answer is the
 * stand-in's own, reshaped on its way by a small proxy (renamed fields, tunnel_fqdn,
 * append_user_to_subdomain, ownership_type, ttl_minutes 0), so the tunnel still logs in with it.
 * The URLs are not public here, so the proof is off: what is asserted is what a user is handed.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { startLocalApp } from '../../scripts/openssh.js'
import { startCredentialService, type RunningService } from '../../service/server.js'
import { systemClock } from '../../src/core/clock.js'
import { keeperEnvironment } from '../../src/core/tunnel/main/keeper-environment.js'
import { provisionWith, revokeWith } from '../helpers/memory-step.js'

const launch = {
  scriptPath: fileURLToPath(new URL('../../src/core/tunnel/keeper/main.ts', import.meta.url)),
  execArgv: ['--import', 'tsx'],
  environment: keeperEnvironment(process.env, [])
}
type Answer = Record<string, unknown>
let service: RunningService
let app: Awaited<ReturnType<typeof startLocalApp>>
let proxy: Server
let proxyBase: string
/** How the proxy reshapes credential-provision's answer; the identity keeps the spec's shape. */
let reshape: (answer: Answer) => Answer = answer => answer
/** What reached the service through the proxy: path and body. */
const requests: { path: string; body: unknown }[] = []

beforeAll(async () => {
  // A host name, as a real service sends: today's default forms https://{name}-{user}.localhost.
  service = await startCredentialService({
    tunnel: { checkIntervalMs: 50 },
    tunnelHost: 'localhost'
  })
  app = await startLocalApp('answer from the local app')
  proxy = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', chunk => chunks.push(chunk as Buffer))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const path = request.url ?? '/'
      requests.push({ path, body: body === '' ? undefined : JSON.parse(body) })
      void fetch(`${service.origin}${path}`, {
        method: request.method,
        headers: {
          ...(request.headers as Record<string, string>),
          host: new URL(service.origin).host
        },
        ...(body !== '' && { body })
      }).then(async answer => {
        let text = await answer.text()
        if (path.endsWith('/credential-provision') && answer.ok) {
          text = JSON.stringify(reshape(JSON.parse(text) as Answer))
        }
        response.writeHead(answer.status, { 'content-type': 'application/json' }).end(text)
      })
    })
  })
  await new Promise<void>(resolve => proxy.listen(0, '127.0.0.1', resolve))
  proxyBase = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/functions/v1`
})
afterAll(async () => {
  await new Promise(resolve => proxy.close(resolve))
  await app.close()
  await service.close()
})
beforeEach(() => {
  requests.length = 0
  reshape = answer => answer
})

const where = { keeperLaunch: launch, clock: { ...systemClock, sleeps: [] } }
const inputs = (extra: Record<string, string> = {}) => ({
  'api-key': service.seed.provisionKey,
  project: service.seed.project,
  'base-url': proxyBase,
  'timeout-seconds': '5',
  expose: `web=${app.port}`,
  'prove-url': 'false',
  ...extra
})
const main = (extra: Record<string, string> = {}) => provisionWith(inputs(extra), where)
const post = (state: Record<string, string>) => revokeWith(inputs(), state, where)
const FQDN = 'cicd.eu1.tunnels.example'
/** credential-provision's answer as the product's own action reads it. */
const productShape =
  (fields: Answer) =>
  ({ token, tunnel_user, client_id: _clientId, expires_at: _at, ...rest }: Answer): Answer => ({
    ...rest,
    tunnel_client_id: tunnel_user,
    tunnel_client_secret: token,
    tunnel_fqdn: FQDN,
    ttl_minutes: 0,
    ...fields
  })
const urlRule = (step: { summaries: { rows: string[][] }[] }) =>
  step.summaries.flatMap(table => table.rows).find(([field]) => field === 'URL rule')?.[1]

describe('a default run (url-template empty)', () => {
  it("hands out today's URL for the spec's answer, exactly as the old default did", async () => {
    const today = await main({ 'url-template': 'https://{name}-{user}.{host}' })
    const now = await main()
    expect([today.errors, now.errors]).toEqual([[], []])
    expect(now.outputs.url).toBe(`https://web-${now.outputs['tunnel-user']}.localhost`)
    expect(today.outputs.url).toBe(`https://web-${today.outputs['tunnel-user']}.localhost`)
    // The same outputs and variables, by name; no notice beyond the host key's.
    expect(Object.keys(now.outputs).sort()).toEqual(Object.keys(today.outputs).sort())
    expect(Object.keys(now.env).sort()).toEqual(Object.keys(today.env).sort())
    expect(now.notices).toEqual(today.notices)
    expect(now.notices).toHaveLength(1)
    expect(now.outputs['expires-at']).toMatch(/^\d{4}-/)
    const rule =
      'https://{name}-{user}.{host}, as input url-template is empty: the domain is the tunnel host (the answer has no tunnel_fqdn), ' +
      'and the name ends with the tunnel user (the answer has no append_user_to_subdomain)'
    expect(now.infos).toContain(`The public URLs are ${rule}.`)
    expect(urlRule(now)).toBe(rule)
    expect(urlRule(today)).toBe('https://{name}-{user}.{host}, from input url-template')
    // The request is the same too: the project, and nothing about URLs.
    const provisions = requests.filter(r => r.path.endsWith('/credential-provision'))
    expect(provisions.map(r => r.body)).toEqual([provisions[0].body, provisions[0].body])
    await post(now.saved)
    await post(today.saved)
  }, 30_000)

  it('on a dedicated server: {name}.{fqdn}, said in a notice and the summary, with no expiry', async () => {
    reshape = productShape({ append_user_to_subdomain: false, ownership_type: 'dedicated' })
    const step = await main()
    expect(step.errors).toEqual([])
    const user = step.outputs['tunnel-user']
    expect(step.outputs.url).toBe(`https://web.${FQDN}`)
    expect(JSON.parse(step.outputs.urls)).toEqual({ web: `https://web.${FQDN}` })
    expect(step.env.SVC_TUNNEL_URL).toBe(`https://web.${FQDN}`)
    // The SSH host stays the answer's tunnel_host.
    expect(step.outputs['tunnel-host']).toBe('localhost')
    const rule = `https://{name}.{fqdn}, as input url-template is empty: the domain is the answer's tunnel_fqdn (${FQDN}), and the name is the entry's alone (append_user_to_subdomain: false)`
    expect(step.notices).toContain(`The public URLs are ${rule}.`)
    expect(urlRule(step)).toBe(rule)
    expect(step.cells).toEqual(expect.arrayContaining(['Ownership', 'dedicated']))
    expect(step.summaries.flatMap(t => t.rows)).toContainEqual(['Expires at', 'no expiry'])
    expect(step.outputs['expires-at']).toBe('')
    expect(step.outputs['ttl-minutes']).toBe('0')
    expect(step.lines).toContain(`Exposed web: https://web.${FQDN}`)
    const after = await post(step.saved)
    expect(after.infos).toContain(`Revoked the tunnel token of user ${user}.`)
  }, 30_000)

  it('on a shared server: {name}-{user}.{fqdn}', async () => {
    reshape = productShape({ append_user_to_subdomain: true, ownership_type: 'shared' })
    const step = await main()
    expect(step.errors).toEqual([])
    expect(step.outputs.url).toBe(`https://web-${step.outputs['tunnel-user']}.${FQDN}`)
    await post(step.saved)
  }, 30_000)

  it("lets the user's template win, and fills {fqdn} from the answer", async () => {
    reshape = productShape({ append_user_to_subdomain: false })
    const step = await main({ 'url-template': 'https://{name}--{user}.{fqdn}' })
    expect(step.errors).toEqual([])
    expect(step.outputs.url).toBe(`https://web--${step.outputs['tunnel-user']}.${FQDN}`)
    expect(step.notices).toHaveLength(1)
    await post(step.saved)
  }, 30_000)

  it('refuses an answer whose two spellings of the user differ: nothing handed out, revoked', async () => {
    reshape = answer => ({ ...answer, tunnel_client_id: 'someone-else' })
    const step = await main()
    expect(step.errors).toEqual([
      'The credential service sent a credential that failed validation: tunnel_user and tunnel_client_id differ, so the answer names two credentials. ' +
        'Nothing was exported. Check that base-url points at the credential service; if it does, report this to the service operator.'
    ])
    expect(step.env).toEqual({})
    expect(step.outputs).toEqual({})
    const issued = requests.find(r => r.path.endsWith('/credential-provision'))
    expect(issued).toBeDefined()
    const revokes = requests.filter(r => r.path.endsWith('/revoke-token'))
    expect(revokes).toHaveLength(1)
    expect((revokes[0].body as Answer).tunnel_user).toMatch(/^[a-z0-9]+$/)
    expect((revokes[0].body as Answer).tunnel_user).not.toBe('someone-else')
  }, 30_000)

  it('refuses a tunnel_fqdn that is not a host name: nothing handed out, revoked', async () => {
    reshape = productShape({ tunnel_fqdn: 'cicd.example/evil' })
    const step = await main()
    expect(step.errors[0]).toContain('tunnel_fqdn is not a lower-case host name')
    expect(step.outputs).toEqual({})
    expect(requests.filter(r => r.path.endsWith('/revoke-token'))).toHaveLength(1)
  }, 30_000)
})
