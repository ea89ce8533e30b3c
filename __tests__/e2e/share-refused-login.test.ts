/**
 * A refused login under `share: use`, through the bundled action under the runner emulation:
 * an SSH refusal carries no reason, so the step asks the service for the token's state and names
 * the cause. A credential the run's final job already revoked (what "re-run failed jobs" after a
 * finished attempt hands out) -> revoked, re-run all jobs; a server that allows one session per
 * credential (the stand-in's oneSessionPerCredential) -> set share to off. Either way the step
 * exports nothing and revokes nothing.
 */
import { startLocalApp } from '../../scripts/openssh.js'
import { annotations, inputsFor, runAction, statusOf, useService } from './helpers.js'
import type { RunningService } from '../../service/server.js'

let web: Awaited<ReturnType<typeof startLocalApp>>
beforeAll(async () => (web = await startLocalApp('answer from the app')))
afterAll(async () => web?.close())

const REFUSED = (user: string) =>
  `The tunnel did not start: the tunnel server refused the credential of ${user} (`

/** Each job of the run: its inputs for the service, with the tunnel's when it exposes. */
function jobInputs(service: RunningService, extra: Record<string, string>) {
  return inputsFor(service, { 'timeout-seconds': '5', 'max-attempts': '3', ...extra })
}
const exposing = (service: RunningService, name: string) => ({
  'url-template': service.tunnel!.urlTemplate,
  expose: `${name}=${web.port}`
})

async function setupJob(service: RunningService) {
  const { main } = await runAction(jobInputs(service, { share: 'create', 'ttl-minutes': '30' }))
  expect(annotations(main, 'error')).toEqual([])
  return { blob: main.outputs['shared-credential'], user: main.outputs['tunnel-user'] }
}
const useInputs = (service: RunningService, blob: string, name: string) =>
  jobInputs(service, { share: 'use', 'shared-credential': blob, ...exposing(service, name) })

describe('a credential the run already revoked', () => {
  const service = useService({ tunnel: { checkIntervalMs: 100 } })

  it('fails use with "revoked: re-run all jobs", exporting nothing', async () => {
    const { blob, user } = await setupJob(service())
    // The final job of an earlier attempt.
    const { main: final } = await runAction(
      jobInputs(service(), { share: 'revoke', 'shared-credential': blob })
    )
    expect(final.exitCode).toBe(0)
    expect(statusOf(service(), user)).toBe('revoked')

    const { main, post } = await runAction(useInputs(service(), blob, 'web-0'))
    expect(main.exitCode).toBe(1)
    const [error, ...more] = annotations(main, 'error')
    expect(more).toEqual([])
    expect(error.startsWith(REFUSED(user))).toBe(true)
    expect(error).toMatch(
      /\. The service no longer lists the token as active: the shared credential was revoked \(the final job of an earlier attempt may have revoked it\): re-run all jobs, so that the setup job shares a new credential\.$/
    )
    expect(main.env).toEqual({})
    expect(main.outputs).toEqual({})
    expect(
      service()
        .requests()
        .map(request => request.path)
    ).toContain('/functions/v1/user-tokens-list')
    await post()
  }, 90_000)
})

describe('a server that allows one session per credential', () => {
  const service = useService({ tunnel: { checkIntervalMs: 100 }, oneSessionPerCredential: true })

  it('fails the second job with "one session per credential: set share to off", revoking nothing', async () => {
    const { blob, user } = await setupJob(service())
    const first = await runAction(useInputs(service(), blob, 'web-0'))
    expect(annotations(first.main, 'error')).toEqual([])
    expect(first.main.exitCode).toBe(0)

    const second = await runAction(useInputs(service(), blob, 'web-1'))
    expect(second.main.exitCode).toBe(1)
    expect(annotations(second.main, 'error')).toEqual([
      expect.stringMatching(
        /\. The service lists the token as active, so this server allows one session per credential: set input share to off, and each job provisions its own credential\.$/
      )
    ])
    expect(annotations(second.main, 'error')[0].startsWith(REFUSED(user))).toBe(true)
    expect(second.main.env).toEqual({})
    expect(second.main.outputs).toEqual({})
    await second.post()
    await first.post()
    // Neither job revoked the run's credential: that is the final job's.
    expect(statusOf(service(), user)).toBe('active')
    expect(
      service()
        .requests()
        .filter(request => request.path.endsWith('revoke-token'))
    ).toEqual([])
  }, 90_000)
})
