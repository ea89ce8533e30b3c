/** The post step when revoking does not go to plan, as the workflow author and the service see it. */
import {
  annotations,
  expectNoLeak,
  inputsFor,
  requestPaths,
  runAction,
  statusOf,
  useService
} from './helpers.js'

const service = useService()

describe.each([
  ['warns and exits 0 by default', {}, 0, 'warning'],
  ['fails with fail-on-revoke-error: true', { 'fail-on-revoke-error': 'true' }, 1, 'error']
] as const)('a revoke that fails for good', (label, extra, exitCode, annotation) => {
  it(label, async () => {
    const { main, post } = await runAction(inputsFor(service(), { 'max-attempts': '1', ...extra }))
    const user = main.env.SVC_TUNNEL_USER
    service().injectFault({ kind: '500', endpoint: 'revoke-token' })
    const after = await post()

    expect(after.exitCode).toBe(exitCode)
    expect(annotations(after, annotation)).toEqual([
      expect.stringMatching(
        new RegExp(`Could not revoke the tunnel token of user ${user}.*500.*expires by itself at `)
      )
    ])
    expect(requestPaths(service())).toEqual(['credential-provision', 'revoke-token'])
    expect(statusOf(service(), user)).toBe('active')
    const apiKey = service().seed.provisionKey
    expectNoLeak(after, { secrets: [apiKey, main.env.SVC_TUNNEL_TOKEN], maskFirst: [apiKey] })
  })
})

it('treats a token already revoked (404) as done', async () => {
  const { main, post } = await runAction(inputsFor(service()))
  const user = main.env.SVC_TUNNEL_USER
  // Someone revoked it by hand during the job: the second revoke answers 404.
  await fetch(`${service().baseUrl}/revoke-token`, {
    method: 'POST',
    headers: { 'x-api-key': service().seed.provisionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ tunnel_user: user })
  })
  const after = await post()
  expect(after.exitCode).toBe(0)
  expect(annotations(after, 'warning')).toEqual([])
  expect(after.stdout).toContain(`${user} was already revoked`)
})

it('revokes a token whose expiry has passed by the runner clock: the service decides', async () => {
  const { main, post } = await runAction(inputsFor(service(), { 'ttl-minutes': '1' }))
  const user = main.env.SVC_TUNNEL_USER
  const state = JSON.parse(main.state.credential)
  // A runner clock far ahead of the service's: the saved expiry looks long past.
  main.state.credential = JSON.stringify({ ...state, expiresAt: '2000-01-01T00:00:00.000Z' })
  const after = await post()
  expect(after.exitCode).toBe(0)
  expect(annotations(after, 'warning')).toEqual([])
  expect(after.stdout).toContain(`Revoked the tunnel token of user ${user}.`)
  expect(requestPaths(service())).toEqual(['credential-provision', 'revoke-token'])
  expect(statusOf(service(), user)).not.toBe('active')
})
