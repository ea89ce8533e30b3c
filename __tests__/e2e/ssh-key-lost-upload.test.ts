/**
 * credential: ssh-key when the answer to keys-upload is lost after the service stored the key (a
 * 500 with no body; no answer before timeout-seconds): the bundled action under the runner
 * emulation retries, and after post no record of the key is active and a copy of the key file,
 * kept aside by the test, no longer logs in.
 */
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { Job } from '../../scripts/job.js'
import { keyTunnelVariables, startSshWithKey } from '../../scripts/openssh.js'
import type { Fault } from '../../service/faults.js'
import { annotations, inputsFor, requestPaths, useService, useSshFixture } from './helpers.js'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
const CLIENT_ID = 'ci-runner-7'
const { clients, jobs, app, scratch } = useSshFixture('ssh-key-lost-')

const recordsOf = (fingerprint: string) =>
  service()
    .sshKeys()
    .filter(key => key.fingerprint === fingerprint)

it.each<[string, Fault]>([
  ['a 500 with no body', { kind: 'no-body', status: 500, endpoint: 'keys-upload' }],
  ['no answer before timeout-seconds', { kind: 'handled-hang', endpoint: 'keys-upload' }]
])(
  'an upload stored but answered with %s leaves no active record after post',
  async (_name, fault) => {
    service().injectFault(fault)
    const job = new Job({ timeoutMs: 30_000 })
    jobs.push(job)
    const use = await job.uses(
      inputsFor(service(), {
        credential: 'ssh-key',
        'client-id': CLIENT_ID,
        'tunnel-host': service().tunnelHost,
        'tunnel-port': String(service().tunnel!.port),
        'timeout-seconds': '2'
      })
    )
    const { main } = use
    expect(main.exitCode).toBe(0)
    const fingerprint = main.outputs['key-fingerprint']
    // Both attempts stored the key; main kept the answered record and revoked the other.
    expect(requestPaths(service())).toEqual([
      'keys-upload',
      'keys-upload',
      'user-keys-list',
      'revoke-ssh-key'
    ])
    const records = recordsOf(fingerprint)
    expect(records).toHaveLength(2)
    expect(records.filter(key => key.status === 'active').map(key => key.id)).toEqual([
      main.outputs['key-id']
    ])

    const vars = keyTunnelVariables(main.env)
    const kept = join(scratch(), `kept_${records[0].id}`)
    copyFileSync(vars.SVC_TUNNEL_KEY_FILE, kept)

    const post = await use.post()
    expect(post.exitCode).toBe(0)
    expect(annotations(post, 'warning')).toEqual([])
    expect(recordsOf(fingerprint).map(key => key.status)).toEqual(['revoked', 'revoked'])

    const again = startSshWithKey(
      { ...vars, SVC_TUNNEL_KEY_FILE: kept },
      { knownHostsPath: service().tunnel!.knownHostsPath, name: 'app', localPort: app().port }
    )
    clients.push(again)
    expect(await again.exited).toBe(255)
    expect(again.stderr()).toContain(`${CLIENT_ID}@127.0.0.1: Permission denied (publickey`)
  },
  60_000
)

it('an upload whose every answer is lost fails main, and leaves no active record', async () => {
  service().injectFault({ kind: 'no-body', status: 500, endpoint: 'keys-upload', count: 2 })
  const keysBefore = service().sshKeys().length
  const job = new Job({ timeoutMs: 30_000 })
  jobs.push(job)
  const use = await job.uses(
    inputsFor(service(), {
      credential: 'ssh-key',
      'client-id': CLIENT_ID,
      'tunnel-host': service().tunnelHost,
      'tunnel-port': String(service().tunnel!.port),
      'max-attempts': '2'
    })
  )
  expect(use.main.exitCode).not.toBe(0)
  const stored = service().sshKeys().slice(keysBefore)
  expect(stored).toHaveLength(2)
  expect(stored.map(key => key.status)).toEqual(['revoked', 'revoked'])
  const post = await use.post()
  expect(post.exitCode).toBe(0)
  expect(
    stored.map(
      key =>
        service()
          .sshKeys()
          .find(k => k.id === key.id)?.status
    )
  ).toEqual(['revoked', 'revoked'])
}, 60_000)
