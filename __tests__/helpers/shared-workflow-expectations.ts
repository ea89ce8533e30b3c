/**
 * What the shared-credential workflow (shared-credential-workflow.ts) must show, whichever runner
 * ran it: one credential for the run, handed over unmasked and unreadable, three tunnels under
 * their own names each reaching its own app, no secret anywhere a log reader or a later job
 * sees, and the credential revoked once, by the final job.
 */
import type { RunningService } from '../../service/server.js'
import type { SharedWorkflowRun } from './shared-credential-workflow.js'
import { secretsOutsideMasks } from './workflow-leaks.js'

const endpointCount = (service: RunningService, endpoint: string) =>
  service.requests().filter(request => request.path.endsWith(`/${endpoint}`)).length

/** `markers[i]` is what matrix job i's app answers with. */
export function expectSharedWorkflow(
  run: SharedWorkflowRun,
  service: RunningService,
  markers: string[]
): void {
  const { setup, matrix, cleanup } = run
  const everyStep = [setup, ...matrix.map(m => m.job), cleanup].flatMap(job => [job.main, job.post])
  expect(everyStep.map(step => [step.step, step.exitCode, step.errors])).toEqual(
    everyStep.map(step => [step.step, 0, []])
  )

  // The setup job hands over the sealed credential as a plain job output; the runner drops the
  // token output declared beside it, since it is masked, so the rule was applied to the blob too.
  const token = setup.main.outputs.token
  const user = setup.main.outputs['tunnel-user']
  expect(token).toEqual(expect.stringMatching(/\S{8}/))
  expect(setup.outputs).toEqual({ 'shared-credential': expect.stringMatching(/^ptc1\./) })
  expect(setup.runnerWarnings).toEqual(["Skip output 'token' since it may contain secret."])
  expect(run.statusAfterSetup).toBe('active')

  // Each matrix job: the same credential, its own name, its own app, reached through its URL.
  const urls = matrix.map(m => m.job.outputs.url)
  expect(matrix.map(m => m.job.main.outputs['tunnel-user'])).toEqual(markers.map(() => user))
  expect(matrix.map(m => m.job.main.outputs.token)).toEqual(markers.map(() => token))
  expect(new Set(urls).size).toBe(markers.length)
  expect(matrix.map(m => m.answer)).toEqual(
    markers.map(marker => ({ status: 200, body: `${marker} (GET /)\n` }))
  )
  const forwards = matrix[0].forwardsWhileUp
  expect(forwards.map(f => [f.user, f.name]).sort()).toEqual(
    markers.map((_, i) => [user, `web-${i}`])
  )
  expect(forwards.map(f => new URL(`http://${f.host}`).hostname).sort()).toEqual(
    urls.map(url => new URL(url).hostname).sort()
  )
  // Each job masks the token it opened, and its post stops its tunnel without revoking.
  for (const { job } of matrix) expect(job.main.masks).toContain(token)
  expect(run.statusAfterMatrix).toBe('active')
  expect(run.sessionsAfterMatrix).toBe(0)

  // One provision for the run, one revoke by the final job, and the token is dead.
  expect(endpointCount(service, 'credential-provision')).toBe(1)
  expect(endpointCount(service, 'revoke-token')).toBe(1)
  expect(service.tokens().find(t => t.tunnel_user === user)?.status).toBe('revoked')

  const gateSecrets = matrix.map(m => m.job.main.outputs['protect-secret'])
  expect(gateSecrets).toEqual(markers.map(() => expect.stringMatching(/\S{8}/)))
  for (const { job } of matrix) {
    expect(job.runnerWarnings).toEqual([
      "Skip output 'protect-secret' since it may contain secret."
    ])
  }
  const jobs = {
    setup,
    ...Object.fromEntries(matrix.map((m, i) => [`test (${i})`, m.job])),
    cleanup
  }
  expect(secretsOutsideMasks(jobs, [token, service.seed.provisionKey, ...gateSecrets])).toEqual([])
}
