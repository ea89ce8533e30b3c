/** Free 5-minute credentials: asked for directly, or by `credential: auto` when the key is empty. */
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

const service = useService()

describe.each([
  ['credential: free', { credential: 'free' }, []],
  ['credential: auto with an empty api-key', { credential: 'auto', 'api-key': '' }, [/forks/]]
])('%s', (_label, overrides: Record<string, string>, warnings: RegExp[]) => {
  it('exports the free credential and leaves nothing to revoke', async () => {
    const { main, post } = await runAction(inputsFor(service(), overrides))
    expect(main.exitCode).toBe(0)
    expect(annotations(main, 'warning')).toEqual(warnings.map(w => expect.stringMatching(w)))
    expect(Object.keys(main.env).sort()).toEqual([...VARIABLES].sort())
    const secret = main.env.SVC_TUNNEL_TOKEN
    const user = main.env.SVC_TUNNEL_USER
    expect(main.outputs).toMatchObject({ credential: 'free', token: secret, 'tunnel-user': user })
    expect(
      service()
        .tokens()
        .find(t => t.tunnel_user === user)?.tunnel_type
    ).toBe('free')
    expect(requestPaths(service())).toEqual(['create-ephemeral-token'])
    expectNoLeak(main, {
      secrets: [secret, service().seed.provisionKey],
      mustMask: [secret],
      about: [user]
    })

    const after = await post()
    expect(after.exitCode).toBe(0)
    expect(after.stdout).toMatch(/Nothing to revoke: free credentials .* expires by itself at/)
    expect(requestPaths(service())).toEqual(['create-ephemeral-token'])
    expect(statusOf(service(), user)).toBe('active')
    expectNoLeak(after, { secrets: [secret] })
  })
})
