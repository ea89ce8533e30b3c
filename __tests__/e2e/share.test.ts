/**
 * The bundled action's share modes, run as the runner runs each job (Node 24, separate processes,
 * the runner's GITHUB_REPOSITORY and GITHUB_RUN_ID): a setup job's shared-credential step output,
 * a job that uses it, and a final job that revokes it. The workflow-shaped run (a matrix, the
 * independent GitHub client) is tested apart.
 */
import { renderLog } from '../../scripts/runner.js'
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

it('shares one credential through the step outputs: created once, used, revoked once', async () => {
  const apiKey = service().seed.provisionKey
  const setup = await runAction(inputsFor(service(), { share: 'create', 'ttl-minutes': '30' }))
  expect(setup.main.exitCode).toBe(0)
  const blob = setup.main.outputs['shared-credential']
  expect(blob).toMatch(/^ptc1\./)
  const token = setup.main.env.SVC_TUNNEL_TOKEN
  const user = setup.main.outputs['tunnel-user']
  expectNoLeak(setup.main, {
    secrets: [apiKey, token],
    mustMask: [apiKey, token],
    maskFirst: [apiKey]
  })
  const setupPost = await setup.post()
  expect(setupPost.exitCode).toBe(0)
  expect(renderLog(setupPost)).toContain(
    `Not revoking tunnel user ${user}: it is the run's shared credential`
  )
  expect(statusOf(service(), user)).toBe('active')

  const used = await runAction(inputsFor(service(), { share: 'use', 'shared-credential': blob }))
  expect(used.main.exitCode).toBe(0)
  expect(used.main.env).toEqual(setup.main.env)
  expect(used.main.outputs).not.toHaveProperty('shared-credential')
  expect(used.main.outputs.token).toBe(token)
  expectNoLeak(used.main, {
    secrets: [apiKey, token],
    mustMask: [apiKey, token],
    maskFirst: [apiKey]
  })
  const usedPost = await used.post()
  expect(usedPost.exitCode).toBe(0)
  expect(annotations(usedPost, 'warning')).toEqual([])
  expect(statusOf(service(), user)).toBe('active')

  const final = await runAction(
    inputsFor(service(), { share: 'revoke', 'shared-credential': blob })
  )
  expect(final.main.exitCode).toBe(0)
  expect(final.main.env).toEqual({})
  expect(final.main.outputs).toEqual({})
  expect(statusOf(service(), user)).toBe('revoked')
  expectNoLeak(final.main, { secrets: [apiKey, token], maskFirst: [apiKey] })
  expect((await final.post()).exitCode).toBe(0)
  // One provision, one revoke; the use job, without expose, only asked whether the token lives.
  expect(requestPaths(service())).toEqual([
    'credential-provision',
    'user-tokens-list',
    'revoke-token'
  ])
})

it('refuses a shared credential from another run, exporting nothing', async () => {
  const setup = await runAction(inputsFor(service(), { share: 'create', 'ttl-minutes': '30' }))
  const blob = setup.main.outputs['shared-credential']
  const other = await runAction(inputsFor(service(), { share: 'use', 'shared-credential': blob }), {
    GITHUB_RUN_ID: '2'
  })
  expect(other.main.exitCode).toBe(1)
  expect(annotations(other.main, 'error')).toEqual([
    expect.stringMatching(
      /^The shared credential was sealed for another run, not run 2 of octo-org\/octo-repo\./
    )
  ])
  expect([other.main.env, other.main.outputs]).toEqual([{}, {}])
})
