/**
 * Issue 26, item 11: the tunnel's options without `expose` do nothing, and main says so in one
 * warning (the step still succeeds), naming each as the user set it; a value equal to the
 * default, which a host fills in by itself (action.yml, the GitLab component), draws none.
 */
import { useLocalService } from '../helpers/core-step.js'
import { provision } from '../../src/core/provision.js'
import { logLines, memoryHost } from '../helpers/memory-host.js'

const { scratch, options } = useLocalService('provision-without-expose-')

async function main(extra: Record<string, string>, label?: (name: string) => string) {
  const host = memoryHost({ options: options(extra), tempRoot: scratch(), ...(label && { label }) })
  const outcome = await provision(host)
  return { outcome, warnings: logLines(host, 'warning'), host }
}

it('warns that --protect does nothing without --expose, and still provisions', async () => {
  const { outcome, warnings, host } = await main({ protect: 'true' })
  expect(outcome.status).toBe('provisioned')
  expect(warnings).toEqual([
    '--protect does nothing without --expose: no tunnel is opened in this step, so it is ignored.'
  ])
  expect(host.env.SVC_TUNNEL_TOKEN).toEqual(expect.any(String))
})

it('names every tunnel option set to other than its default, as the action names its inputs', async () => {
  const { warnings } = await main(
    {
      'log-requests': 'false',
      'log-bodies': '4096',
      'log-headers': 'unredacted',
      'prove-url': 'FALSE',
      'url-template': 'https://{name}.example.test',
      'tunnel-host-key': 'SHA256:' + 'A'.repeat(43)
    },
    name => `input ${name}`
  )
  expect(warnings).toEqual([
    'Input url-template, input tunnel-host-key, input log-requests, input log-bodies, input log-headers and input prove-url do nothing without input expose: no tunnel is opened in this step, so they are ignored.'
  ])
})

it('says nothing for the defaults, in whatever case or form they are written', async () => {
  const { outcome, warnings } = await main({
    protect: 'False',
    'log-requests': 'TRUE',
    'log-bodies': '00',
    'log-headers': 'Redacted',
    'prove-url': 'true',
    'url-template': '  ',
    'tunnel-host-key': ''
  })
  expect(outcome.status).toBe('provisioned')
  expect(warnings).toEqual([])
})

it('still refuses a wrong value without expose, before any request', async () => {
  const { outcome } = await main({ protect: 'yes' })
  expect(outcome).toEqual({
    status: 'failed',
    message: '--protect is "yes": expected true or false.'
  })
})
