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

async function provision(): Promise<{ user: string; token: string }> {
  const response = await fetch(`${service.baseUrl}/credential-provision`, {
    method: 'POST',
    headers: { 'x-api-key': service.seed.provisionKey },
    body: JSON.stringify({ project: service.seed.project })
  })
  const body = (await response.json()) as { token: string; tunnel_user: string }
  return { user: body.tunnel_user, token: body.token }
}

/** A tunnel process of `credential` forwarding `names`, as one job of a matrix would run it. */
function job(credential: { user: string; token: string }, names: string[]) {
  return runKeeper(service.tunnel!.port, {
    host: service.tunnel!.host,
    user: credential.user,
    token: credential.token,
    entries: names.map(name => ({ name, host: '127.0.0.1', port: app.port }))
  })
}

describe('a forward refused for the per-user limit', () => {
  it('names the limit the server told, counted across the jobs sharing the credential', async () => {
    const credential = await provision()
    const first = job(credential, ['web-0', 'api-0', 'db-0', 'ws-0', 'docs-0'])
    expect(await first.report).toMatchObject({ type: 'ready' })

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

  it('says what the server said about a name in use, as before: nothing of a limit', async () => {
    const credential = await provision()
    expect(await job(credential, ['web']).report).toMatchObject({ type: 'ready' })
    const report = await job(credential, ['web']).report
    expect(report).toMatchObject({
      type: 'failed',
      cause: 'forward',
      detail: 'the tunnel server refused the forward for "web"'
    })
    expect(report).not.toHaveProperty('forwardLimit')
    expect(describeStartFailure(report, '', 'RUNNER_TEMP')).toContain(
      'The name may be in use: by another tunnel of this user'
    )
  })
})
