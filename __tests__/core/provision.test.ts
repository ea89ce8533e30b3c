/**
 * What main does, through the in-memory host: against the local credential service, with no
 * runner emulation. Against a stubbed service: provision-request, -answers, -inputs, -unusable
 * and -expose; the GitHub host's own tests are in __tests__/github.
 */
import { readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { useLocalService } from '../helpers/core-step.js'
import { provision } from '../../src/core/provision.js'
import type { ProvisionOutcome } from '../../src/core/outcome.js'
import { logLines, memoryHost, type MemoryHost } from '../helpers/memory-host.js'

const { scratch, options, service: localService } = useLocalService('provision-test-')

async function main(
  extra: Record<string, string> = {},
  more: Parameters<typeof memoryHost>[0] = {}
): Promise<MemoryHost & { failure?: string }> {
  const host = memoryHost({ options: options(extra), tempRoot: scratch(), ...more })
  const outcome: ProvisionOutcome = await provision(host)
  return Object.assign(host, outcome.status === 'failed' && { failure: outcome.message })
}

it('masks the secrets it was given before any line, and each issued token before it is logged', async () => {
  const host = await main({ 'tunnel-token': 'tok_given_but_unused' })
  expect(host.failure).toBeUndefined()
  expect(host.events.slice(0, 2)).toEqual([
    `mask ${localService().seed.provisionKey}`,
    'mask tok_given_but_unused'
  ])
  // The issued token is masked as it arrives, and is in no line of the log.
  const token = host.outputs.token
  expect(host.events.filter(event => event.includes(token))).toEqual([`mask ${token}`])
})

it('writes the variables, outputs and summary, and saves for post, once the step succeeds', async () => {
  const host = await main()
  const user = host.outputs['tunnel-user']
  expect(host.env).toMatchObject({ SVC_TUNNEL_TOKEN: host.outputs.token, SVC_TUNNEL_USER: user })
  expect(host.summaries.map(table => table.heading)).toEqual(['Tunnel credentials'])
  expect(JSON.parse(host.saved.credential)).toMatchObject({ kind: 'cicd', tunnelUser: user })
  expect(host.saved.credential).not.toContain(host.outputs.token)
  expect(logLines(host, 'info').at(-1)).toMatch(
    new RegExp(`^Provisioned .*${user}.* Exported SVC_TUNNEL_TOKEN, _USER, _HOST and _PORT\\.$`)
  )
})

it('writes nothing, fails once, and saves nothing for post when the options are wrong', async () => {
  const requests = localService().requests().length
  const host = await main({ 'max-attempts': 'many' })
  expect(host.failure).toMatch(/max-attempts/)
  expect(host.events).not.toContain('hand-over')
  expect([host.env, host.outputs, host.summaries]).toEqual([{}, {}, []])
  expect(host.saved).toEqual({})
  expect(localService().requests()).toHaveLength(requests)
})

it('writes nothing, and revokes at once, when the tunnel cannot be handed the credential', async () => {
  // A tunnel process that dies before it is ready: the credential is issued, then not handed over.
  const script = join(scratch(), 'exits.cjs')
  writeFileSync(script, 'process.exit(4)\n')
  const tempRoot = scratch()
  const host = await main(
    { expose: 'web=8080', 'url-template': 'http://{name}-{user}.localhost:9' },
    { tempRoot, keeperLaunch: { scriptPath: script, execArgv: [], environment: {} } }
  )
  // Its exit, or the closed channel main's send meets first, depending on which comes first.
  expect(host.failure).toMatch(
    /^The tunnel did not start: (the tunnel process exited before it was ready \(exit code 4\)|.*channel closed.*)\./
  )
  expect([host.env, host.outputs, host.summaries]).toEqual([{}, {}, []])
  const user = localService().tokens().at(-1)!.tunnel_user
  expect(
    localService()
      .tokens()
      .find(token => token.tunnel_user === user)?.status
  ).toBe('revoked')
  // Revoked by main: post finds neither a credential nor a tunnel to act on.
  expect(host.saved.credential).toBe('')
  expect(host.saved.tunnel).toBe('')
  // A failed tunnel leaves nothing behind: neither its process nor its folder.
  expect(readdirSync(tempRoot)).toEqual([])
})

it('revokes at once, and leaves nothing for post, when the host cannot take the hand-over', async () => {
  const host = await main({}, { handOverError: new Error('EACCES: permission denied') })
  expect(host.failure).toMatch(/EACCES/)
  expect([host.env, host.outputs, host.summaries]).toEqual([{}, {}, []])
  const user = localService().tokens().at(-1)!.tunnel_user
  expect(localService().tokens().at(-1)!.status).toBe('revoked')
  expect(host.saved.credential).toBe('')
  expect(logLines(host, 'info').join('\n')).not.toMatch(new RegExp(`Provisioned .*${user}`))
})

it('fails with the reason the service gives for a refused key, and writes nothing', async () => {
  const host = await main({ 'api-key': `sk_${'0'.repeat(64)}` })
  expect(host.failure).toContain('The API key was rejected (401 UNAUTHORIZED)')
  expect([host.env, host.outputs]).toEqual([{}, {}])
})
