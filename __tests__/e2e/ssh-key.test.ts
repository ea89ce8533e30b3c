/**
 * credential: ssh-key and credential: existing, end to end: the bundled action (Node 24) against
 * the local service and its tunnel stand-in, with the real OpenSSH client. For ssh-key, the key
 * file it exports logs in with `ssh -i`, host key checked; after post the key reads revoked, the
 * file is gone and the same key is refused. For existing, a project token is exported and
 * tunnels, and post leaves it alive.
 */
import { copyFileSync, existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { Job } from '../../scripts/job.js'
import { runStep } from '../../scripts/runner.js'
import {
  getThroughFront,
  keyTunnelVariables,
  makeAskpass,
  startSsh,
  startSshWithKey,
  tunnelVariables,
  waitForTunnel,
  type KeyTunnelVariables,
  type SshClient
} from '../../scripts/openssh.js'
import {
  annotations,
  expectFailedMain,
  expectNoLeak,
  inputsFor,
  requestPaths,
  statusOf,
  useService,
  useSshFixture
} from './helpers.js'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
const CLIENT_ID = 'ci-runner-7'
const { clients, jobs, app, scratch } = useSshFixture('ssh-key-e2e-')

function sshKeyInputs(overrides: Record<string, string> = {}): Record<string, string> {
  return inputsFor(service(), {
    credential: 'ssh-key',
    'client-id': CLIENT_ID,
    'tunnel-host': service().tunnelHost,
    'tunnel-port': String(service().tunnel!.port),
    ...overrides
  })
}

/** A job whose post step the test runs itself, so RUNNER_TEMP outlives it until afterAll. */
async function useAction(inputs: Record<string, string>) {
  const job = new Job({ timeoutMs: 20_000 })
  jobs.push(job)
  return job.uses(inputs)
}

function sshWithKey(vars: KeyTunnelVariables): SshClient {
  const client = startSshWithKey(vars, {
    knownHostsPath: service().tunnel!.knownHostsPath,
    name: 'app',
    localPort: app().port
  })
  clients.push(client)
  return client
}

const lastEvent = (user: string) =>
  service()
    .tunnel!.events()
    .filter(event => event.user === user)
    .at(-1)

const keyById = (id: string) =>
  service()
    .sshKeys()
    .find(key => key.id === id)

describe('credential: ssh-key', () => {
  it('the exported key file reaches the local app with ssh -i; after post it is revoked, gone, and refused', async () => {
    const use = await useAction(sshKeyInputs())
    const { main } = use
    expect(main.exitCode).toBe(0)
    const vars = keyTunnelVariables(main.env)
    expect(main.env.SVC_TUNNEL_TOKEN).toBeUndefined()
    expect(vars).toMatchObject({
      SVC_TUNNEL_USER: CLIENT_ID,
      SVC_TUNNEL_HOST: '127.0.0.1',
      SVC_TUNNEL_PORT: String(service().tunnel!.port)
    })
    const keyFile = vars.SVC_TUNNEL_KEY_FILE
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    expect(main.outputs).toMatchObject({ credential: 'ssh-key', 'key-file': keyFile })

    // The service holds the public half, under the run's name, with the fingerprint of the output.
    const keyId = main.outputs['key-id']
    expect(keyById(keyId)).toMatchObject({
      status: 'active',
      fingerprint: main.outputs['key-fingerprint'],
      client_id: CLIENT_ID,
      name: 'ci-octo-org-octo-repo-1-1'
    })
    const uploads = service()
      .requests()
      .filter(r => r.path.endsWith('/keys-upload'))
    expect(uploads).toHaveLength(1)
    expect(uploads[0].body).toMatchObject({ expires_in_days: 1, client_id: CLIENT_ID })

    // The private key appears nowhere but in its file: no log line, summary or saved state.
    const privateLines = readFileSync(keyFile, 'utf8')
      .split('\n')
      .filter(line => line && !line.startsWith('-----'))
    expectNoLeak(main, { secrets: [service().seed.provisionKey, ...privateLines] })
    const kept = join(scratch(), 'kept_key')
    copyFileSync(keyFile, kept)

    const client = sshWithKey(vars)
    const host = `app-${CLIENT_ID}.localhost`
    expect(await waitForTunnel(client, service().tunnel!.frontPort, host)).toEqual({
      status: 200,
      body: 'answer from your local app (GET /)\n'
    })

    const post = await use.post()
    expect(post.exitCode).toBe(0)
    expect(annotations(post, 'warning')).toEqual([])
    expectNoLeak(post, { secrets: [service().seed.provisionKey, ...privateLines] })
    expect(keyById(keyId)?.status).toBe('revoked')
    expect(existsSync(keyFile)).toBe(false)
    expect(existsSync(dirname(keyFile))).toBe(false)
    // The open session is closed once the key is revoked ...
    expect(await client.exited).toBe(255)
    expect((await getThroughFront(service().tunnel!.frontPort, host)).status).toBe(502)
    // ... and the same key, kept aside by this test, is refused.
    const again = sshWithKey({ ...vars, SVC_TUNNEL_KEY_FILE: kept })
    expect(await again.exited).toBe(255)
    expect(again.stderr()).toContain(`${CLIENT_ID}@127.0.0.1: Permission denied (publickey`)
    expect(lastEvent(CLIENT_ID)).toMatchObject({ event: 'refused', detail: 'credential revoked' })
  }, 40_000)

  it('a fingerprint that differs fails main, exports nothing and revokes the key at once', async () => {
    service().injectFault({
      kind: 'hostile',
      endpoint: 'keys-upload',
      override: { public_key_fingerprint: 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }
    })
    const use = await useAction(sshKeyInputs())
    expectFailedMain(
      use.main,
      /^The credential service answered keys-upload with the fingerprint SHA256:AAAA\S+, but the key this step made and sent has SHA256:\S+: the service did not store the key that was sent\. Nothing was exported\./
    )
    expect(requestPaths(service())).toEqual(['keys-upload', 'revoke-ssh-key'])
    const uploaded = service().sshKeys().at(-1)!
    expect(uploaded.status).toBe('revoked')
    const post = await use.post()
    expect(post.exitCode).toBe(0)
    expect(requestPaths(service())).toEqual(['keys-upload', 'revoke-ssh-key'])
  }, 30_000)

  it('a 403 on revoke (another account) is a warning naming the cause; the file is still deleted', async () => {
    const use = await useAction(sshKeyInputs())
    expect(use.main.exitCode).toBe(0)
    const keyFile = use.main.env.SVC_TUNNEL_KEY_FILE
    // The post step run with the second account's API key: the key is not that account's.
    const post = await runStep({
      step: 'post',
      inputs: sshKeyInputs({ 'api-key': service().seed.secondOwnerKey }),
      state: use.main.state,
      runnerTemp: dirname(dirname(keyFile)),
      timeoutMs: 20_000
    })
    expect(post.exitCode).toBe(0)
    expect(annotations(post, 'warning')).toEqual([
      expect.stringMatching(
        /^Could not revoke the SSH key SHA256:\S+ \(id \S+\): The API key is not allowed to do this \(403 FORBIDDEN\)\..* The key belongs to another account /
      )
    ])
    expect(keyById(use.main.outputs['key-id'])?.status).toBe('active')
    expect(existsSync(keyFile)).toBe(false)
  }, 40_000)

  it('a 429 on upload fails main with the keys-upload limit and when to re-run', async () => {
    const keysBefore = service().sshKeys().length
    service().injectFault({ kind: '429', retryAfter: 3600, endpoint: 'keys-upload' })
    const use = await useAction(sshKeyInputs())
    expectFailedMain(
      use.main,
      /^Rate limited by the credential service \(HTTP 429 RATE_LIMIT.*\); keys-upload allows 20 uploads per hour per user\. It asks to wait 3600 s.*re-run the job after /
    )
    expect(service().sshKeys()).toHaveLength(keysBefore)
  }, 30_000)
})

describe('expose with credential: ssh-key', () => {
  it('the tunnel process logs in with the key file; post stops it, revokes the key and deletes the file', async () => {
    const use = await useAction(
      sshKeyInputs({
        expose: `web=${app().port}`,
        'url-template': `http://{name}-{user}.localhost:${service().tunnel!.frontPort}`,
        'timeout-seconds': '5'
      })
    )
    const { main } = use
    expect(main.exitCode).toBe(0)
    const url = main.outputs.url
    expect(url).toBe(`http://web-${CLIENT_ID}.localhost:${service().tunnel!.frontPort}`)
    expect(main.env.SVC_TUNNEL_URL).toBe(url)
    const keyFile = main.env.SVC_TUNNEL_KEY_FILE
    const privateLines = readFileSync(keyFile, 'utf8')
      .split('\n')
      .filter(line => line && !line.startsWith('-----'))
    expectNoLeak(main, { secrets: [service().seed.provisionKey, ...privateLines] })
    // The key logged in: a public-key login for the client id, no password tried.
    expect(
      service()
        .tunnel!.loginAttempts()
        .filter(attempt => attempt.user === CLIENT_ID)
        .map(attempt => attempt.method)
    ).toContain('publickey')
    expect(
      service()
        .tunnel!.loginAttempts()
        .filter(attempt => attempt.user === CLIENT_ID && attempt.method === 'password')
    ).toEqual([])

    const host = new URL(url).hostname
    expect(await getThroughFront(service().tunnel!.frontPort, host)).toEqual({
      status: 200,
      body: 'answer from your local app (GET /)\n'
    })

    const post = await use.post()
    expect(post.exitCode).toBe(0)
    expect(annotations(post, 'warning')).toEqual([])
    const info = post.lines.map(line => line.text).filter(text => !text.startsWith('::'))
    expect(info[0]).toMatch(/^Tunnel: up \d+ s, never down; 1 connections?\b/)
    expect(info[1]).toBe(
      `Revoked the SSH key ${main.outputs['key-fingerprint']} (id ${main.outputs['key-id']}).`
    )
    expect(keyById(main.outputs['key-id'])?.status).toBe('revoked')
    expect(existsSync(keyFile)).toBe(false)
    expect((await getThroughFront(service().tunnel!.frontPort, host)).status).toBe(502)
  }, 60_000)
})

describe("expose with credential: ssh-key and a project's default client id", () => {
  const frontTemplate = () => `http://{name}-{user}.localhost:${service().tunnel!.frontPort}`

  it('works end to end: the URL it outputs answers', async () => {
    const response = await fetch(`${service().baseUrl}/project-register`, {
      method: 'POST',
      headers: { 'X-API-Key': service().seed.provisionKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ slug: 'keyed-expose', name: 'Keyed expose' })
    })
    const { project } = (await response.json()) as { project: { default_client_id: string } }
    const use = await useAction(
      sshKeyInputs({
        'client-id': project.default_client_id,
        expose: `web=${app().port}`,
        'url-template': frontTemplate(),
        'timeout-seconds': '5'
      })
    )
    expect(use.main.exitCode).toBe(0)
    const url = use.main.outputs.url
    expect(url).toBe(
      `http://web-${project.default_client_id}.localhost:${service().tunnel!.frontPort}`
    )
    expect(await getThroughFront(service().tunnel!.frontPort, new URL(url).hostname)).toEqual({
      status: 200,
      body: 'answer from your local app (GET /)\n'
    })
    expect((await use.post()).exitCode).toBe(0)
  }, 60_000)

  it('a tunnel that fails exports nothing, not even the path of the deleted key file', async () => {
    const wrong = 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU'
    const use = await useAction(
      sshKeyInputs({
        expose: `web=${app().port}`,
        'url-template': frontTemplate(),
        'tunnel-host-key': wrong,
        'timeout-seconds': '5'
      })
    )
    const { main } = use
    expect(main.exitCode).toBe(1)
    expect(annotations(main, 'error')).toEqual([
      expect.stringContaining("The tunnel did not start: the tunnel server's host key is")
    ])
    expect(main.env).toEqual({})
    expect(main.outputs).toEqual({})
    expect(main.summary).toBe('')
    const key = service().sshKeys().at(-1)!
    expect(key.status).toBe('revoked')
    expect(main.stdout).toMatch(/Deleted the private key file and its folder /)
    expect((await use.post()).exitCode).toBe(0)
  }, 60_000)
})

describe('credential: existing', () => {
  it('a project token from project-register is exported, tunnels, and is not revoked by post', async () => {
    const response = await fetch(`${service().baseUrl}/project-register`, {
      method: 'POST',
      headers: { 'X-API-Key': service().seed.provisionKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ slug: 'held-token-app', name: 'Held token app', create_token: true })
    })
    expect(response.status).toBe(200)
    const { token } = (await response.json()) as { token: { token: string; tunnel_user: string } }
    service().clearRequests()

    const use = await useAction({
      credential: 'existing',
      'tunnel-token': token.token,
      'tunnel-user': token.tunnel_user,
      'tunnel-host': service().tunnelHost,
      'tunnel-port': String(service().tunnel!.port)
    })
    expect(use.main.exitCode).toBe(0)
    expectNoLeak(use.main, { secrets: [token.token], maskFirst: [token.token] })
    const vars = tunnelVariables(use.main.env)
    expect(vars).toEqual({
      SVC_TUNNEL_TOKEN: token.token,
      SVC_TUNNEL_USER: token.tunnel_user,
      SVC_TUNNEL_HOST: '127.0.0.1',
      SVC_TUNNEL_PORT: String(service().tunnel!.port)
    })
    expect(use.main.outputs.credential).toBe('existing')

    const askpass = makeAskpass()
    try {
      const client = startSsh(vars, askpass.path, {
        knownHostsPath: service().tunnel!.knownHostsPath,
        name: 'app',
        localPort: app().port
      })
      clients.push(client)
      const host = `app-${token.tunnel_user}.localhost`
      expect((await waitForTunnel(client, service().tunnel!.frontPort, host)).status).toBe(200)

      const post = await use.post()
      expect(post.exitCode).toBe(0)
      expect(annotations(post, 'warning')).toEqual([])
      expect(statusOf(service(), token.tunnel_user)).toBe('active')
      expect((await getThroughFront(service().tunnel!.frontPort, host)).status).toBe(200)
      // Neither step sent anything to the service.
      expect(requestPaths(service())).toEqual([])
    } finally {
      askpass.remove()
    }
  }, 40_000)

  it('with expose, the held token opens the tunnel; post stops it and revokes nothing', async () => {
    const response = await fetch(`${service().baseUrl}/project-register`, {
      method: 'POST',
      headers: { 'X-API-Key': service().seed.provisionKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        slug: 'held-token-expose',
        name: 'Held token expose',
        create_token: true
      })
    })
    const { token } = (await response.json()) as { token: { token: string; tunnel_user: string } }
    service().clearRequests()
    const use = await useAction({
      credential: 'existing',
      'tunnel-token': token.token,
      'tunnel-user': token.tunnel_user,
      'tunnel-host': service().tunnelHost,
      'tunnel-port': String(service().tunnel!.port),
      expose: String(app().port),
      'url-template': `http://{name}-{user}.localhost:${service().tunnel!.frontPort}`
    })
    expect(use.main.exitCode).toBe(0)
    expectNoLeak(use.main, { secrets: [token.token], maskFirst: [token.token] })
    const host = new URL(use.main.outputs.url).hostname
    expect(host).toBe(`app-${token.tunnel_user}.localhost`)
    expect((await getThroughFront(service().tunnel!.frontPort, host)).status).toBe(200)
    const post = await use.post()
    expect(post.exitCode).toBe(0)
    expect(annotations(post, 'warning')).toEqual([])
    expect(statusOf(service(), token.tunnel_user)).toBe('active')
    // The tunnel is stopped, the token lives on; neither step sent a request to the service.
    expect((await getThroughFront(service().tunnel!.frontPort, host)).status).toBe(502)
    expect(requestPaths(service())).toEqual([])
  }, 60_000)
})
