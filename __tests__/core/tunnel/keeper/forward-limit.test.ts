/**
 * A forward refused for the server's per-user limit, which jobs sharing one credential fill
 * together: the tunnel process reads why on the session channel (the server's console) and the
 * start failure names the limit. Without the server's word the message is what it was.
 */
import { startLocalApp } from '../../../../scripts/openssh.js'
import { startCredentialService, type RunningService } from '../../../../service/server.js'
import { describeStartFailure } from '../../../../src/core/tunnel/main/start-failure.js'
import { cleanUp, runKeeper } from '../../../helpers/ssh-stand-in.js'

let service: RunningService
let app: Awaited<ReturnType<typeof startLocalApp>>

beforeAll(async () => {
  service = await startCredentialService({ tunnel: { checkIntervalMs: 50 } })
  app = await startLocalApp('answer from the local app')
})
afterEach(cleanUp)
afterAll(async () => {
  await app.close()
  await service.close()
})

async function provision(from = service): Promise<{ user: string; token: string }> {
  const response = await fetch(`${from.baseUrl}/credential-provision`, {
    method: 'POST',
    headers: { 'x-api-key': from.seed.provisionKey },
    body: JSON.stringify({ project: from.seed.project })
  })
  const body = (await response.json()) as { token: string; tunnel_user: string }
  return { user: body.tunnel_user, token: body.token }
}

/** A tunnel process of `credential` forwarding `names`, as one job of a matrix would run it. */
function job(credential: { user: string; token: string }, names: string[], on = service) {
  return runKeeper(on.tunnel!.port, {
    host: on.tunnel!.host,
    user: credential.user,
    token: credential.token,
    entries: names.map(name => ({ name, host: '127.0.0.1', port: app.port }))
  })
}

describe('a forward refused for the per-user limit', () => {
  it('names the limit the server told, counted across the jobs sharing the credential', async () => {
    const credential = await provision()
    const sessionsBefore = service.tunnel!.sessionChannels()
    const first = job(credential, ['web-0', 'api-0', 'db-0', 'ws-0', 'docs-0'])
    expect(await first.report).toMatchObject({ type: 'ready' })
    // Started: the server's console was never opened (a shell request, on OpenSSH a login shell).
    expect(service.tunnel!.sessionChannels()).toBe(sessionsBefore)

    const sixth = job(credential, ['web-1'])
    const report = await sixth.report
    expect(report).toEqual({
      type: 'failed',
      cause: 'forward',
      name: 'web-1',
      forwardLimit: 5,
      fingerprint: service.tunnel!.fingerprint,
      detail:
        'the tunnel server refused the forward for "web-1": it allows at most 5 forwards per ' +
        'tunnel user (all jobs sharing the credential count)'
    })
    expect(describeStartFailure(report, '', 'RUNNER_TEMP')).toBe(
      'The tunnel did not start: the tunnel server refused the forward for "web-1": it allows at ' +
        'most 5 forwards per tunnel user (all jobs sharing the credential count). Expose fewer ' +
        'entries, or run fewer jobs that expose at once with one shared credential.'
    )
    expect(sixth.log()).toContain('The server allows at most 5 forwards per tunnel user')
    // The first job's tunnel is untouched.
    expect(
      service
        .tunnel!.forwards()
        .filter(forward => forward.user === credential.user)
        .map(forward => forward.name)
        .sort()
    ).toEqual(['api-0', 'db-0', 'docs-0', 'web-0', 'ws-0'])
  })

  it('says the name is taken when the server says so, and nothing of a limit', async () => {
    const credential = await provision()
    expect(await job(credential, ['web']).report).toMatchObject({ type: 'ready' })
    const sessionsBefore = service.tunnel!.sessionChannels()
    const refused = job(credential, ['api', 'web'])
    const report = await refused.report
    expect(report).toEqual({
      type: 'failed',
      cause: 'forward',
      name: 'web',
      nameTaken: true,
      fingerprint: service.tunnel!.fingerprint,
      detail:
        'the tunnel server refused the forward for "web": the name is in use by another tunnel'
    })
    // Asked once, after the refusal.
    expect(service.tunnel!.sessionChannels()).toBe(sessionsBefore + 1)
    expect(refused.log()).toContain('The server says the name web is in use by another tunnel')
    expect(describeStartFailure(report, '', 'RUNNER_TEMP', { exposeOption: '--expose' })).toBe(
      'The tunnel did not start: the name web is taken on the tunnel server, by another job ' +
        'sharing this credential or by another tunnel. Give each job its own names in --expose, ' +
        'e.g. web-${{ strategy.job-index }} on GitHub or web-{index} with the GitLab component.'
    )
  })

  it('says what it said before when the server tells nothing', async () => {
    const silent = await startCredentialService({
      tunnel: { checkIntervalMs: 50, silentConsole: true }
    })
    try {
      const credential = await provision(silent)
      expect(await job(credential, ['web'], silent).report).toMatchObject({ type: 'ready' })
      const report = await job(credential, ['web'], silent).report
      expect(report).toEqual({
        type: 'failed',
        cause: 'forward',
        name: 'web',
        fingerprint: silent.tunnel!.fingerprint,
        detail: 'the tunnel server refused the forward for "web"'
      })
      expect(describeStartFailure(report, '', 'RUNNER_TEMP')).toContain(
        'The name may be in use: by another tunnel of this user'
      )
    } finally {
      await silent.close()
    }
  })
})
