/**
 * Main with `expose` and an empty url-template, against the local service and its tunnel
 * stand-in (issue 27): the URL a default run hands out, the notice and the summary that say which
 * rule formed it, in the spec's shape and in the product's. The product's answer is the
 * stand-in's own, reshaped on its way by a small proxy (renamed fields, tunnel_fqdn,
 * append_user_to_subdomain, ownership_type, ttl_minutes 0), so the tunnel still logs in with it.
 * The URLs are not public here, so the proof is off: what is asserted is what a user is handed.
 */
import { fileURLToPath } from 'node:url'
import { startLocalApp } from '../../scripts/openssh.js'
import { startCredentialService, type RunningService } from '../../service/server.js'
import { systemClock } from '../../src/core/clock.js'
import { keeperEnvironment } from '../../src/core/tunnel/main/keeper-environment.js'
import {
  productShape as shaped,
  startAnswerProxy,
  type Answer,
  type AnswerProxy
} from '../helpers/answer-proxy.js'
import { provisionWith, revokeWith } from '../helpers/memory-step.js'

const launch = {
  scriptPath: fileURLToPath(new URL('../../src/core/tunnel/keeper/main.ts', import.meta.url)),
  execArgv: ['--import', 'tsx'],
  environment: keeperEnvironment(process.env, [])
}
let service: RunningService
let app: Awaited<ReturnType<typeof startLocalApp>>
let proxy: AnswerProxy

beforeAll(async () => {
  // A host name, as a real service sends: today's default forms https://{name}-{user}.localhost.
  service = await startCredentialService({
    tunnel: { checkIntervalMs: 50 },
    tunnelHost: 'localhost'
  })
  app = await startLocalApp('answer from the local app')
  proxy = await startAnswerProxy(service.origin)
})
afterAll(async () => {
  await proxy.close()
  await app.close()
  await service.close()
})
beforeEach(() => {
  proxy.requests.length = 0
  proxy.reshape = answer => answer
})

const where = { keeperLaunch: launch, clock: { ...systemClock, sleeps: [] } }
const inputs = (extra: Record<string, string> = {}) => ({
  'api-key': service.seed.provisionKey,
  project: service.seed.project,
  'base-url': proxy.baseUrl,
  'timeout-seconds': '5',
  expose: `web=${app.port}`,
  'prove-url': 'false',
  ...extra
})
const main = (extra: Record<string, string> = {}) => provisionWith(inputs(extra), where)
const post = (state: Record<string, string>) => revokeWith(inputs(), state, where)
const FQDN = 'cicd.eu1.tunnels.example'
const productShape = (fields: Answer) => shaped(FQDN, fields)
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
    const provisions = proxy.requests.filter(r => r.path.endsWith('/credential-provision'))
    expect(provisions.map(r => r.body)).toEqual([provisions[0].body, provisions[0].body])
    await post(now.saved)
    await post(today.saved)
  }, 30_000)

  it('on a dedicated server: {name}.{fqdn}, said in a notice and the summary, with no expiry', async () => {
    proxy.reshape = productShape({ append_user_to_subdomain: false, ownership_type: 'dedicated' })
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
    proxy.reshape = productShape({ append_user_to_subdomain: true, ownership_type: 'shared' })
    const step = await main()
    expect(step.errors).toEqual([])
    expect(step.outputs.url).toBe(`https://web-${step.outputs['tunnel-user']}.${FQDN}`)
    await post(step.saved)
  }, 30_000)

  it("lets the user's template win, and fills {fqdn} from the answer", async () => {
    proxy.reshape = productShape({ append_user_to_subdomain: false })
    const step = await main({ 'url-template': 'https://{name}--{user}.{fqdn}' })
    expect(step.errors).toEqual([])
    expect(step.outputs.url).toBe(`https://web--${step.outputs['tunnel-user']}.${FQDN}`)
    expect(step.notices).toHaveLength(1)
    await post(step.saved)
  }, 30_000)

  it('refuses an answer whose two spellings of the user differ: nothing handed out, revoked', async () => {
    proxy.reshape = answer => ({ ...answer, tunnel_client_id: 'someone-else' })
    const step = await main()
    expect(step.errors).toEqual([
      'The credential service sent a credential that failed validation: tunnel_user and tunnel_client_id differ, so the answer names two credentials. ' +
        'Nothing was exported. Check that base-url points at the credential service; if it does, report this to the service operator.'
    ])
    expect(step.env).toEqual({})
    expect(step.outputs).toEqual({})
    const issued = proxy.requests.find(r => r.path.endsWith('/credential-provision'))
    expect(issued).toBeDefined()
    const revokes = proxy.requests.filter(r => r.path.endsWith('/revoke-token'))
    expect(revokes).toHaveLength(1)
    expect((revokes[0].body as Answer).tunnel_user).toMatch(/^[a-z0-9]+$/)
    expect((revokes[0].body as Answer).tunnel_user).not.toBe('someone-else')
  }, 30_000)

  it('refuses a tunnel_fqdn that is not a host name: nothing handed out, revoked', async () => {
    proxy.reshape = productShape({ tunnel_fqdn: 'cicd.example/evil' })
    const step = await main()
    expect(step.errors[0]).toContain('tunnel_fqdn is not a lower-case host name')
    expect(step.outputs).toEqual({})
    expect(proxy.requests.filter(r => r.path.endsWith('/revoke-token'))).toHaveLength(1)
  }, 30_000)
})
