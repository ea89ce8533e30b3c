/**
 * A 429 from credential-provision through the main step, against the local service's rate-limit
 * fault: a per-job step is told to share the credential per run, and a setup job that already
 * shares it is told where the rest of the count came from instead. Both say when to re-run.
 */
import { useLocalService } from '../../helpers/core-step.js'
import { provisionWith } from '../../helpers/memory-step.js'
import { RUN_SCOPE } from '../../helpers/share-scope.js'

const { options, service } = useLocalService('share-rate-limit-')
const limited = () =>
  service().injectFault({ kind: '429', retryAfter: 3600, endpoint: 'credential-provision' })

it('tells a step that provisions per job to share one credential per run', async () => {
  limited()
  const step = await provisionWith(options({ 'ttl-minutes': '30' }), { shareScope: RUN_SCOPE })
  expect(step.errors).toHaveLength(1)
  expect(step.errors[0]).toMatch(
    /re-run the job after \S+Z \(in 1 h\), when the next provision is possible\. A pipeline with many jobs can provision once per run instead of once per job: set input share to create in one setup job, and to use in the jobs that need the tunnel\.$/
  )
  expect([step.env, step.outputs]).toEqual([{}, {}])
})

it('tells a setup job that already shares that others used up the limit', async () => {
  limited()
  const step = await provisionWith(options({ share: 'create', 'ttl-minutes': '30' }), {
    shareScope: RUN_SCOPE
  })
  expect(step.errors).toHaveLength(1)
  expect(step.errors[0]).toMatch(
    /when the next provision is possible\. This step already provisions once for the whole run \(input share is create\): other runs, or other jobs with the same API key, used up the limit\.$/
  )
  expect(step.errors[0]).not.toContain('A pipeline with many jobs')
  expect([step.env, step.outputs]).toEqual([{}, {}])
})
