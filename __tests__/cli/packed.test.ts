/**
 * The npm package as a GitLab or Jenkins job gets it: packed, installed offline into an empty
 * folder, and run on Node 20 and Node 24 against the local credential service. What a user sees:
 * exit codes, the env file and its mode, URLs that answer, tokens revoked, no process left, and
 * no secret in anything the CLI prints.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
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
const APP_ANSWER = 'answer from your local app (GET /)\n'

describe.each([
  ['Node 20', () => process.execPath],
  ['Node 24', () => ensureNode24()]
])('the packed package on %s', (_name, node) => {
  const cli = (args: string[]) => job.cli(args, job.env(), node())

  it('provision writes tunnel.env (0600, loadable by sh), revoke revokes and deletes it', async () => {
    const provisioned = await cli(['provision'])
    expect(provisioned.stderr).toBe('')
    expect(provisioned.code).toBe(0)
    const envFile = join(job.work(), 'tunnel.env')
    expect(statSync(envFile).mode & 0o777).toBe(0o600)
    const vars = loadEnvFile(envFile)
    expect(Object.keys(vars).sort()).toEqual([
      'SVC_TUNNEL_HOST',
      'SVC_TUNNEL_PORT',
      'SVC_TUNNEL_TOKEN',
      'SVC_TUNNEL_USER'
    ])
    expect(vars.SVC_TUNNEL_PORT).toBe(String(service().tunnelPort))
    expect(statusOf(service(), vars.SVC_TUNNEL_USER)).toBe('active')
    expect(provisioned.stdout).toContain(`Wrote 4 variables to ${envFile}`)
    const state = readFileSync(join(job.work(), '.tunnel-credentials.json'), 'utf8')
    expect(state).not.toContain(vars.SVC_TUNNEL_TOKEN)

    const revoked = await cli(['revoke'])
    expect(revoked.code).toBe(0)
    expect(revoked.stdout).toContain(`Revoked the tunnel token of user ${vars.SVC_TUNNEL_USER}.`)
    expect(statusOf(service(), vars.SVC_TUNNEL_USER)).toBe('revoked')
    expect(existsSync(envFile)).toBe(false)
    expect(existsSync(join(job.work(), '.tunnel-credentials.json'))).toBe(false)
    // Twice is safe: nothing left, nothing to do, exit 0.
    const again = await cli(['revoke'])
    expect(again.code).toBe(0)
    expect(again.stdout).toMatch(/Nothing to revoke/)
    for (const run of [provisioned, revoked, again]) {
      expectNoSecretPrinted(run, [service().seed.provisionKey, vars.SVC_TUNNEL_TOKEN])
    }
  })

  it('provision --expose prints a URL that reaches the app; revoke ends the tunnel and removes its folder', async () => {
    const provisioned = await cli(['provision', ...job.exposeFlags()])
    expect(provisioned.code).toBe(0)
    const vars = loadEnvFile(join(job.work(), 'tunnel.env'))
    const url = vars.SVC_TUNNEL_URL
    expect(provisioned.stdout).toContain(`Exposed app: ${url}`)
    expect(await fetchUrl(service(), url)).toEqual({ status: 200, text: APP_ANSWER })
    const pid = tunnelPid(provisioned)
    expect(stillRunning(pid)).toBe(true)

    const tunnelLog = /, log (\S+)\)/.exec(provisioned.stdout)![1]
    expect(existsSync(tunnelLog)).toBe(true)

    const revoked = await cli(['revoke'])
    expect(revoked.code).toBe(0)
    expect(stillRunning(pid)).toBe(false)
    expect(existsSync(dirname(tunnelLog))).toBe(false)
    expect((await fetchUrl(service(), url)).status).toBe(502)
    expect(statusOf(service(), vars.SVC_TUNNEL_USER)).toBe('revoked')
    for (const run of [provisioned, revoked]) {
      expectNoSecretPrinted(run, [service().seed.provisionKey, vars.SVC_TUNNEL_TOKEN])
    }
  })

  it('run gives the command the variables but not the API key, exits with its code, revokes', async () => {
    const script =
      'printf "%s|%s|%s\\n" "$SVC_TUNNEL_USER" "${SVC_API_KEY:-no key}" "$SVC_TUNNEL_URL"; ' +
      'curl -s "$SVC_TUNNEL_URL/"; echo; exit 7'
    const ran = await cli(['run', ...job.exposeFlags(), '--', 'sh', '-c', script])
    expect(ran.code).toBe(7)
    const [user, key, url] = ran.stdout
      .split('\n')
      .find(line => line.includes('|'))!
      .split('|')
    expect(key).toBe('no key')
    expect(url).toMatch(/^http:\/\/app-/)
    expect(ran.stdout).toContain(APP_ANSWER)
    expect(statusOf(service(), user)).toBe('revoked')
    expect(existsSync(join(job.work(), 'tunnel.env'))).toBe(false)
    expect(existsSync(join(job.work(), '.tunnel-credentials.json'))).toBe(false)
    expect((await fetchUrl(service(), url)).status).toBe(502)
    expectNoSecretPrinted(ran, [service().seed.provisionKey])
  })

  it('replay sends the requests of a HAR to the app, with no variable at all, and compares statuses', async () => {
    const request = (method: string, path: string, text?: string) => ({
      request: {
        method,
        url: `https://web-u1.tunnel.example${path}`,
        headers: [{ name: 'Host', value: '127.0.0.1' }],
        bodySize: text?.length ?? 0,
        ...(text !== undefined && { postData: { mimeType: 'text/plain', text } })
      },
      response: { status: 200 }
    })
    const har = {
      log: { version: '1.2', entries: [request('GET', '/'), request('POST', '/hook', 'x')] }
    }
    writeFileSync(join(job.work(), 'requests.har'), JSON.stringify(har))
    const to = `http://127.0.0.1:${job.app().port}`
    const ran = await job.cli(
      ['replay', 'requests.har', '--to', to],
      { PATH: '/usr/bin:/bin' },
      node()
    )
    expect(ran.stderr).toBe('')
    expect(ran.code).toBe(0)
    expect(ran.stdout.split('\n').filter(line => /^#\d .* OK$/.test(line))).toHaveLength(2)
  })

  it('run keeps the API key from every process the command can read (run, the tunnel, its own) and still revokes', async () => {
    // What a same-user command can read: the environment blocks of run ($PPID) and of every child
    // of run, which are the tunnel process and the command itself.
    const script =
      'cat /proc/$PPID/environ > run.environ; ' +
      'for dir in /proc/[0-9]*; do ' +
      '  [ "$(sed -n "s/^PPid:[[:space:]]*//p" $dir/status 2>/dev/null)" = "$PPID" ] && ' +
      '    cat $dir/environ > child-${dir#/proc/}.environ; ' +
      'done; printf "%s\\n" "$SVC_TUNNEL_USER" > user'
    const ran = await cli(['run', ...job.exposeFlags(), '--', 'sh', '-c', script])
    expect(ran.code).toBe(0)
    const read = (file: string) => readFileSync(join(job.work(), file))
    const children = readdirSync(job.work()).filter(file => file.startsWith('child-'))
    // The tunnel process and the command's sh were both found, and read.
    expect(children).toEqual(
      expect.arrayContaining([`child-${tunnelPid(ran)}.environ`, expect.any(String)])
    )
    expect(children.length).toBeGreaterThanOrEqual(2)
    expect(read('run.environ').length).toBeGreaterThan(0)
    const key = service().seed.provisionKey
    for (const file of ['run.environ', ...children]) {
      expect({ file, holdsKey: read(file).includes(key) }).toEqual({ file, holdsKey: false })
    }
    // The key was still at run's hand: the credential is revoked.
    expect(statusOf(service(), read('user').toString().trim())).toBe('revoked')
  })
})
