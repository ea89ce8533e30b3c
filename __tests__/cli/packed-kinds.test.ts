/**
 * Every credential kind through the packed package (on Node 20 and 24), and what a job sees when things go
 * wrong: exit codes, the one error line naming the option, nothing half-written, masking on a
 * system that offers it, and cleanup when the job is interrupted.
 */
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ensureNode24 } from '../../scripts/runner.js'
import { statusOf, useService } from '../e2e/helpers.js'
import {
  expectNoSecretPrinted,
  fetchUrl,
  loadEnvFile,
  stillRunning,
  tunnelPid,
  useCliJob
} from './cli-job.js'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
const job = useCliJob(service)

describe.each([
  ['Node 20', () => process.execPath],
  ['Node 24', () => ensureNode24()]
])('every credential kind on %s', (name, node) => {
  it('free: exported, nothing to revoke, and no API key needed', async () => {
    const env = job.env({ SVC_CREDENTIAL: 'free' })
    delete (env as Record<string, string | undefined>).SVC_API_KEY
    const provisioned = await job.cli(['provision'], env, node())
    expect(provisioned.code).toBe(0)
    const vars = loadEnvFile(join(job.work(), 'tunnel.env'))
    expect(vars.SVC_TUNNEL_TOKEN).toMatch(/\S/)
    const revoked = await job.cli(['revoke'], env, node())
    expect(revoked.code).toBe(0)
    expect(revoked.stdout).toMatch(/Nothing to revoke: free credentials .* expires by itself at/)
    expect(existsSync(join(job.work(), 'tunnel.env'))).toBe(false)
    expectNoSecretPrinted(provisioned, [vars.SVC_TUNNEL_TOKEN])
  })

  it('ssh-key: a key file in --work-dir, a tunnel with it, and revoke deletes and revokes the key', async () => {
    const keys = join(job.work(), 'keys')
    mkdirSync(keys)
    const flags = [
      '--credential',
      'ssh-key',
      '--client-id',
      'ci-runner-7',
      '--tunnel-host',
      service().tunnelHost,
      '--tunnel-port',
      String(service().tunnel!.port),
      '--work-dir',
      keys,
      ...job.exposeFlags()
    ]
    const provisioned = await job.cli(['provision', ...flags], job.env(), node())
    expect(provisioned.stderr).toBe('')
    expect(provisioned.code).toBe(0)
    const vars = loadEnvFile(join(job.work(), 'tunnel.env'))
    const keyFile = vars.SVC_TUNNEL_KEY_FILE
    expect(keyFile.startsWith(`${keys}/`)).toBe(true)
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    expect(vars.SVC_TUNNEL_TOKEN).toBeUndefined()
    expect((await fetchUrl(service(), vars.SVC_TUNNEL_URL)).status).toBe(200)
    const key = service().sshKeys().at(-1)!
    expect(key.status).toBe('active')

    const revoked = await job.cli(['revoke', ...flags], job.env(), node())
    expect(revoked.code).toBe(0)
    expect(existsSync(keyFile)).toBe(false)
    expect(
      service()
        .sshKeys()
        .find(k => k.id === key.id)?.status
    ).toBe('revoked')
    expect(stillRunning(tunnelPid(provisioned))).toBe(false)
    // The key file and the tunnel's directory are gone: a reused agent collects nothing.
    expect(readdirSync(keys)).toEqual([])
    expectNoSecretPrinted(provisioned, [service().seed.provisionKey])
  })

  it('existing: the token comes from SVC_INPUT_TUNNEL_TOKEN only, is exported, and is not revoked', async () => {
    const response = await fetch(`${service().baseUrl}/project-register`, {
      method: 'POST',
      headers: { 'X-API-Key': service().seed.provisionKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        // One project per Node version: a slug is registered once.
        slug: `cli-held-token-${name.slice('Node '.length)}`,
        name: 'CLI held token',
        create_token: true
      })
    })
    const { token } = (await response.json()) as { token: { token: string; tunnel_user: string } }
    const env = job.env({
      SVC_CREDENTIAL: 'existing',
      SVC_INPUT_TUNNEL_TOKEN: token.token,
      SVC_INPUT_TUNNEL_USER: token.tunnel_user,
      SVC_INPUT_TUNNEL_HOST: service().tunnelHost,
      SVC_INPUT_TUNNEL_PORT: String(service().tunnel!.port)
    })
    const provisioned = await job.cli(['provision'], env, node())
    expect(provisioned.code).toBe(0)
    expect(loadEnvFile(join(job.work(), 'tunnel.env'))).toStrictEqual({
      SVC_TUNNEL_TOKEN: token.token,
      SVC_TUNNEL_USER: token.tunnel_user,
      SVC_TUNNEL_HOST: service().tunnelHost,
      SVC_TUNNEL_PORT: String(service().tunnel!.port)
    })
    const revoked = await job.cli(['revoke'], env, node())
    expect(revoked.code).toBe(0)
    expect(statusOf(service(), token.tunnel_user)).toBe('active')
    for (const run of [provisioned, revoked]) expectNoSecretPrinted(run, [token.token])
  })
})

describe('failures', () => {
  it('a missing project: exit 1, one error naming SVC_PROJECT, nothing written', async () => {
    const env = job.env({ SVC_PROJECT: '' })
    const run = await job.cli(['provision'], env)
    expect(run.code).toBe(1)
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^Error: SVC_PROJECT /)])
    expect(readdirSync(job.work())).toEqual([])
    expect(service().requests()).toEqual([])
  })

  it('a bad flag value is named as the flag; a secret as a flag is a usage error that never echoes it', async () => {
    const bad = await job.cli(['provision', '--ttl-minutes', 'soon'])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/^Error: --ttl-minutes is "soon": expected /)
    const secret = service().seed.provisionKey
    const usage = await job.cli(['provision', `--api-key=${secret}`])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toMatch(/--api-key is refused.*Set the variable SVC_API_KEY instead/)
    expectNoSecretPrinted(usage, [secret])
    expect(readdirSync(job.work())).toEqual([])
  })

  it('a revoke the service refuses is a warning, or exit 1 with --fail-on-revoke-error', async () => {
    expect((await job.cli(['provision'])).code).toBe(0)
    const user = loadEnvFile(join(job.work(), 'tunnel.env')).SVC_TUNNEL_USER
    const down = job.env({ SVC_BASE_URL: 'http://127.0.0.1:9/functions/v1', SVC_MAX_ATTEMPTS: '1' })
    const warned = await job.cli(['revoke'], down)
    expect(warned.code).toBe(0)
    expect(warned.stderr).toMatch(/^Warning: /m)
    // The record stays, so a second revoke, with the service back, finishes the job.
    expect(existsSync(join(job.work(), '.tunnel-credentials.json'))).toBe(true)
    const failed = await job.cli(['revoke', '--fail-on-revoke-error'], down)
    expect(failed.code).toBe(1)
    const retried = await job.cli(['revoke'])
    expect(retried.code).toBe(0)
    expect(statusOf(service(), user)).toBe('revoked')
  })
})

describe('a CI system that can mask', () => {
  it('GitHub Actions: every secret is registered with ::add-mask:: before any other line', async () => {
    const run = await job.cli(
      ['provision'],
      job.env({
        GITHUB_ACTIONS: 'true',
        GITHUB_RUN_ID: '42',
        GITHUB_WORKSPACE: job.work(),
        RUNNER_TEMP: job.work()
      })
    )
    expect(run.code).toBe(0)
    const token = loadEnvFile(join(job.work(), 'tunnel.env')).SVC_TUNNEL_TOKEN
    const lines = run.stdout.trim().split('\n')
    expect(lines[0]).toBe(`::add-mask::${service().seed.provisionKey}`)
    expect(lines[1]).toMatch(/^Masking: GitHub Actions hides /)
    const tokenMask = lines.indexOf(`::add-mask::${token}`)
    expect(tokenMask).toBeGreaterThan(1)
    const others = lines.filter(line => !line.startsWith('::add-mask::'))
    for (const line of others) expect(line).not.toContain(token)
    expect(lines.findIndex(line => line.startsWith('Provisioned'))).toBeGreaterThan(tokenMask)
  })
})

describe('run, interrupted', () => {
  const TRAPPED = 'trap "echo command got the signal; exit 3" TERM INT HUP; '
  const LOOP = 'echo "ready $SVC_TUNNEL_USER"; while :; do sleep 0.1; done'
  it.each([
    ['SIGTERM', 'a command that traps it', TRAPPED, 3],
    ['SIGINT', 'a command that traps it', TRAPPED, 3],
    ['SIGHUP', 'a command that traps it', TRAPPED, 3],
    ['SIGTERM', 'a command it ends', '', 143]
  ] as const)(
    '%s to run: the command gets it with %s, run exits with its code, the tunnel stops, the token is revoked',
    async (signal, _what, trap, code) => {
      let sent = false
      const script = `${trap}${LOOP}`
      const ran = await job.cli(
        ['run', ...job.exposeFlags(), '--', 'sh', '-c', script],
        job.env(),
        process.execPath,
        (child, out) => {
          if (!sent && /^ready \S+$/m.test(out)) {
            sent = true
            child.kill(signal)
          }
        }
      )
      if (trap) expect(ran.stdout).toContain('command got the signal')
      // The command's own code; 128 + the signal's number when the signal ended it, as shells say.
      expect(ran.code).toBe(code)
      const user = /^ready (\S+)$/m.exec(ran.stdout)![1]
      expect(statusOf(service(), user)).toBe('revoked')
      expect(stillRunning(tunnelPid(ran))).toBe(false)
      expect(existsSync(join(job.work(), '.tunnel-credentials.json'))).toBe(false)
    }
  )
})

describe('a run that is killed outright', () => {
  it('leaves no tunnel: the tunnel process watches run and ends with it', async () => {
    let killed = false
    const script = 'echo "ready $SVC_TUNNEL_USER $$"; while :; do sleep 0.1; done'
    const ready = /^ready (\S+) (\d+)$/m
    const ran = await job.cli(
      ['run', ...job.exposeFlags(), '--', 'sh', '-c', script],
      job.env(),
      process.execPath,
      (child, out) => {
        const found = ready.exec(out)
        if (killed || !found) return
        killed = true
        child.kill('SIGKILL')
        // Nothing passes kill -9 on: the command outlives run, as it would in a job, and holds
        // the output open until it is ended too.
        process.kill(Number(found[2]), 'SIGTERM')
      }
    )
    expect(ran.signal).toBe('SIGKILL')
    const pid = tunnelPid(ran)
    // The tunnel process looks at run on each of its ticks; give it a few.
    for (let i = 0; i < 40 && stillRunning(pid); i++) await new Promise(r => setTimeout(r, 100))
    expect(stillRunning(pid)).toBe(false)
    // What revoke needs is still on disk, so a cleanup step revokes the credential.
    const user = ready.exec(ran.stdout)![1]
    expect(statusOf(service(), user)).toBe('active')
    const revoked = await job.cli(['revoke'])
    expect(revoked.code).toBe(0)
    expect(statusOf(service(), user)).toBe('revoked')
    // Everything it recorded is finished: the state file goes, and the next provision works.
    expect(existsSync(join(job.work(), '.tunnel-credentials.json'))).toBe(false)
    expect((await job.cli(['provision'])).code).toBe(0)
    expect((await job.cli(['revoke'])).code).toBe(0)
  })
})
