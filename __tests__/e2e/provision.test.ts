/**
 * The bundled action, run as the runner runs it (Node 24, separate processes), against the local
 * credential service: provision, export, revoke.
 */
import { Job } from '../../scripts/job.js'
import { renderLog } from '../../scripts/runner.js'
import {
  annotations,
  expectNoLeak,
  inputsFor,
  requestPaths,
  runAction,
  statusOf,
  useService,
  VARIABLES
} from './helpers.js'

const service = useService({ projects: ['second-app'] })

describe.each([
  ['without debug', {}],
  ['with RUNNER_DEBUG=1', { RUNNER_DEBUG: '1' }]
])('happy path %s', (_label, env: Record<string, string>) => {
  it('exports the credential, then revokes it in the post step', async () => {
    const apiKey = service().seed.provisionKey
    const { main, post } = await runAction(inputsFor(service()), env)

    expect(main.exitCode).toBe(0)
    expect(Object.keys(main.env).sort()).toEqual([...VARIABLES].sort())
    const token = main.env.SVC_TUNNEL_TOKEN
    const user = main.env.SVC_TUNNEL_USER
    expect(token).toMatch(/^tok_\S+$/)
    expect(main.env).toMatchObject({ SVC_TUNNEL_HOST: '127.0.0.1', SVC_TUNNEL_PORT: '2223' })
    expect(main.outputs).toEqual({
      token,
      'tunnel-user': user,
      'client-id': expect.any(String),
      'tunnel-host': '127.0.0.1',
      'tunnel-port': '2223',
      'expires-at': expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      'ttl-minutes': expect.stringMatching(/^\d+$/),
      'project-slug': 'demo-app',
      credential: 'cicd'
    })
    expect(main.summary).toContain(user)
    expect(statusOf(service(), user)).toBe('active')
    expect(renderLog(main)).toContain(`Provisioned tunnel user ${user}`)
    expectNoLeak(main, {
      secrets: [apiKey, token],
      mustMask: [apiKey, token],
      maskFirst: [apiKey],
      about: [user]
    })

    const revoked = await post()
    expect(revoked.exitCode).toBe(0)
    expect(annotations(revoked, 'warning')).toEqual([])
    expect(statusOf(service(), user)).toBe('revoked')
    expect(service().requests().at(-1)?.body).toEqual({ tunnel_user: user })
    expectNoLeak(revoked, { secrets: [apiKey, token], mustMask: [apiKey], maskFirst: [apiKey] })
  })
})

it('sends the key in X-API-Key only, and environment and ttl-minutes in the body', async () => {
  const { main, post } = await runAction(
    inputsFor(service(), { environment: 'staging', 'ttl-minutes': '15' })
  )
  await post()
  const [provision] = service().requests()
  expect(provision.path).toBe('/functions/v1/credential-provision')
  expect(provision.headers['x-api-key']).toMatch(/…c1cd$/)
  expect(provision.headers['user-agent']).toMatch(/provision-tunnel-credentials/i)
  expect(provision.body).toEqual({ project: 'demo-app', environment: 'staging', ttl_minutes: 15 })
  expect(main.outputs['ttl-minutes']).toBe('15')
})

it('keeps the token active with revoke: false', async () => {
  const { main, post } = await runAction(inputsFor(service(), { revoke: 'false' }))
  const user = main.env.SVC_TUNNEL_USER
  const after = await post()
  expect(after.exitCode).toBe(0)
  expect(after.stdout).toContain(`Not revoking tunnel user ${user}`)
  expect(statusOf(service(), user)).toBe('active')
  expect(requestPaths(service())).toEqual(['credential-provision'])
})

it('serves two projects in one job, each under its own prefix, and revokes both', async () => {
  const apiKey = service().seed.provisionKey
  const job = new Job({ timeoutMs: 20_000 })
  const first = await job.uses(inputsFor(service()))
  const second = await job.uses(
    inputsFor(service(), { project: 'second-app', 'env-prefix': 'OTHER' })
  )
  expect(second.main.outputs['project-slug']).toBe('second-app')
  expect(Object.keys(job.exported).sort()).toEqual(
    [...VARIABLES, ...VARIABLES.map(v => v.replace('SVC_', 'OTHER_'))].sort()
  )
  const users = [job.exported.SVC_TUNNEL_USER, job.exported.OTHER_TUNNEL_USER]
  expect(users[0]).not.toBe(users[1])

  const posts = await job.end()
  expect(posts.map(p => p.exitCode)).toEqual([0, 0])
  expect(users.map(u => statusOf(service(), u))).toEqual(['revoked', 'revoked'])
  // Post steps run last-first, as the runner does.
  expect(
    service()
      .requests()
      .slice(2)
      .map(r => r.body)
  ).toEqual([{ tunnel_user: users[1] }, { tunnel_user: users[0] }])
  const tokens = [job.exported.SVC_TUNNEL_TOKEN, job.exported.OTHER_TUNNEL_TOKEN]
  for (const step of [first.main, second.main, ...posts]) {
    expectNoLeak(step, { secrets: [apiKey, ...tokens], maskFirst: [apiKey] })
  }
})
