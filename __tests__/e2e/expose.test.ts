/**
 * `expose`: the bundled action (Node 24, dist/index.cjs and dist/tunnel/index.cjs) opens the
 * tunnel itself against the service's tunnel stand-in, as separate processes the way the runner
 * runs them: main exits while the tunnel process serves on, and post stops it before revoking.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Job } from '../../scripts/job.js'
import { getThroughFront, startLocalApp } from '../../scripts/openssh.js'
import type { StepResult } from '../../scripts/runner.js'
import { annotations, expectNoLeak, inputsFor, statusOf, useService } from './helpers.js'

const service = useService({ tunnel: { checkIntervalMs: 100 } })
let web: Awaited<ReturnType<typeof startLocalApp>>
let api: Awaited<ReturnType<typeof startLocalApp>>
const temps: string[] = []

beforeAll(async () => {
  web = await startLocalApp('answer from web')
  api = await startLocalApp('answer from api')
})
afterAll(async () => {
  await web?.close()
  await api?.close()
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

/** A job whose RUNNER_TEMP the test can look into, to find the tunnel process's files. */
function newJob(): { job: Job; runnerTemp: string } {
  const runnerTemp = mkdtempSync(join(tmpdir(), 'expose-e2e-'))
  temps.push(runnerTemp)
  return { job: new Job({ env: { RUNNER_TEMP: runnerTemp }, timeoutMs: 30_000 }), runnerTemp }
}

const exposeInputs = (extra: Record<string, string>) =>
  inputsFor(service(), {
    'url-template': `http://{name}-{user}.localhost:${service().tunnel!.frontPort}`,
    'timeout-seconds': '5',
    ...extra
  })

/** Pids of every tunnel process started in this RUNNER_TEMP, from the stats files they wrote. */
function tunnelPids(runnerTemp: string): number[] {
  return (
    readdirSync(runnerTemp)
      // The folders alone: the request log beside them (tunnel-credentials-requests-…) is a file.
      .filter(name => /^tunnel-[A-Za-z0-9]{6}$/.test(name))
      .map(
        dir => JSON.parse(readFileSync(join(runnerTemp, dir, 'stats.json'), 'utf8')).pid as number
      )
  )
}

/**
 * Running, as /proc says: main has exited, so the tunnel process's parent is pid 1, which here
 * (as in many containers) reaps late or never. A stopped process waiting to be reaped is stopped.
 */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2))
  } catch {
    return false
  }
}

const get = (url: string) => getThroughFront(service().tunnel!.frontPort, new URL(url).hostname)

/**
 * What a user sees of a failed main step: one error, exit 1, no tunnel left behind, and nothing
 * for later steps: no line of ours in GITHUB_ENV or GITHUB_OUTPUT, no summary.
 */
function expectTunnelFailure(main: StepResult, runnerTemp: string, message: string): void {
  expect(main.exitCode).toBe(1)
  expect(annotations(main, 'error')).toEqual([expect.stringContaining(message)])
  expect(main.env).toEqual({})
  expect(main.outputs).toEqual({})
  expect(main.summary).toBe('')
  // None saved, or saved when the process started and emptied when main ended it.
  expect(main.state.tunnel ?? '').toBe('')
  for (const pid of tunnelPids(runnerTemp)) expect(isAlive(pid)).toBe(false)
}

/** The tunnel user of the credential main was issued last; main exported nothing that names it. */
const lastIssuedUser = () => service().tokens().at(-1)!.tunnel_user

describe('expose', () => {
  it('two entries reach their local apps after main exited; post stops the process, revokes, and the URL answers 502', async () => {
    const { job, runnerTemp } = newJob()
    const use = await job.uses(
      exposeInputs({ expose: `web=${web.port}\napi=127.0.0.1:${api.port}` })
    )
    const { main } = use
    expect(main.exitCode).toBe(0)
    const user = main.outputs['tunnel-user']
    const urls = JSON.parse(main.outputs.urls) as Record<string, string>
    expect(Object.keys(urls)).toEqual(['web', 'api'])
    expect(main.outputs.url).toBe(urls.web)
    expect(main.env.SVC_TUNNEL_URL).toBe(urls.web)
    expect(main.summary).toContain(`<td>api</td><td>${urls.api}</td>`)
    expectNoLeak(main, {
      secrets: [main.outputs.token, service().seed.provisionKey],
      mustMask: [main.outputs.token]
    })
    const { pid } = JSON.parse(main.state.tunnel) as { pid: number }
    expect(tunnelPids(runnerTemp)).toEqual([pid])

    // main has exited; the tunnel process serves on while later steps run.
    expect(await get(urls.web)).toEqual({ status: 200, body: 'answer from web (GET /)\n' })
    expect(await get(urls.api)).toEqual({ status: 200, body: 'answer from api (GET /)\n' })
    expect(isAlive(pid)).toBe(true)

    const post = await use.post()
    expect(post.exitCode).toBe(0)
    expect(annotations(post, 'warning')).toEqual([])
    const info = post.lines.map(line => line.text).filter(text => !text.startsWith('::'))
    expect(info).toEqual([
      expect.stringMatching(
        /^Tunnel: up \d+ s, never down; 2 connections \(\d+ requests?: a connection can carry several\), \d+ B in \/ \d+ B out, 0 reconnects, 0 local connection errors\.$/
      ),
      `Revoked the tunnel token of user ${user}.`
    ])
    expect(isAlive(pid)).toBe(false)
    expect(statusOf(service(), user)).toBe('revoked')
    expect((await get(urls.web)).status).toBe(502)
    await job.end()
  }, 60_000)

  it('post stops the process even when a later step emptied RUNNER_TEMP, and the URL answers 502', async () => {
    const { job, runnerTemp } = newJob()
    const use = await job.uses(exposeInputs({ expose: `web=${web.port}` }))
    expect(use.main.exitCode).toBe(0)
    const { pid, dir } = JSON.parse(use.main.state.tunnel) as { pid: number; dir: string }
    expect(await get(use.main.outputs.url)).toMatchObject({ status: 200 })
    for (const name of readdirSync(runnerTemp)) {
      rmSync(join(runnerTemp, name), { recursive: true, force: true })
    }
    const post = await use.post()
    expect(post.exitCode).toBe(0)
    expect(annotations(post, 'warning')).toEqual([
      `The tunnel process ${pid} was stopped, but its directory ${dir} could not be used (it no longer exists), so its log and counters are lost. ` +
        'Check whether a step of the job deletes or replaces files in RUNNER_TEMP.'
    ])
    expect(isAlive(pid)).toBe(false)
    expect((await get(use.main.outputs.url)).status).toBe(502)
    await job.end()
  }, 60_000)

  it('fails main before authentication on a wrong tunnel-host-key: no login attempt, no process', async () => {
    const { job, runnerTemp } = newJob()
    const wrong = 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU'
    const { main } = await job.uses(
      exposeInputs({ expose: String(web.port), 'tunnel-host-key': wrong })
    )
    expectTunnelFailure(
      main,
      runnerTemp,
      `The tunnel did not start: the tunnel server's host key is ${service().tunnel!.fingerprint}, which input tunnel-host-key does not list, so the connection was left before the token was sent.`
    )
    const user = lastIssuedUser()
    expect(
      service()
        .tunnel!.loginAttempts()
        .filter(a => a.user === user)
    ).toEqual([])
    const [post] = await job.end()
    expect(post.exitCode).toBe(0)
    expect(statusOf(service(), user)).toBe('revoked')
  }, 60_000)

  it('accepts the right tunnel-host-key, given as a known_hosts line', async () => {
    const { job } = newJob()
    const line = readFileSync(service().tunnel!.knownHostsPath, 'utf8').split('\n')[0]
    const { main } = await job.uses(
      exposeInputs({ expose: String(web.port), 'tunnel-host-key': line })
    )
    expect(main.exitCode).toBe(0)
    expect(annotations(main, 'notice')).toEqual([])
    expect((await get(main.outputs.url)).status).toBe(200)
    await job.end()
  }, 60_000)

  it('fails main naming the entry the server refuses, exports nothing, and leaves no process', async () => {
    const { job, runnerTemp } = newJob()
    // The stand-in refuses a sixth forward of one tunnel user.
    const entries = ['a', 'b', 'c', 'd', 'e', 'f'].map(name => `${name}=${web.port}`).join('\n')
    const { main } = await job.uses(exposeInputs({ expose: entries }))
    expectTunnelFailure(
      main,
      runnerTemp,
      'The tunnel did not start: the tunnel server refused the forward for "f": it allows at most 5 forwards per tunnel user'
    )
    // A failed tunnel leaves nothing behind: no process, and not its folder either.
    expect(readdirSync(runnerTemp).filter(name => name.startsWith('tunnel-'))).toEqual([])
    const [post] = await job.end()
    expect(statusOf(service(), lastIssuedUser())).toBe('revoked')
    expect(post.exitCode).toBe(0)
  }, 60_000)

  it('fails before any request when the default url-template meets an IP tunnel-host', async () => {
    const { job, runnerTemp } = newJob()
    service().clearRequests()
    const { main } = await job.uses(
      inputsFor(service(), { expose: String(web.port), 'tunnel-host': '127.0.0.1' })
    )
    expectTunnelFailure(
      main,
      runnerTemp,
      'Input url-template is empty, and the form it stands for, "https://{name}.{host}", does not form a URL for "app" with tunnel host 127.0.0.1: the tunnel host is an IPv4 address'
    )
    expect(annotations(main, 'error')[0]).toContain(
      'Nothing was requested from the credential service.'
    )
    expect(service().requests()).toEqual([])
    expect(tunnelPids(runnerTemp)).toEqual([])
    await job.end()
  }, 60_000)

  it.each([
    ['\n::error::pwned', 'a line break (U+000A)'],
    ['\n::add-mask::localhost', 'a line break (U+000A)'],
    ['\n::stop-commands::x', 'a line break (U+000A)'],
    ['\r::warning::pwned', 'a line break (U+000D)']
  ])(
    'refuses a url-template ending in %j: no injected command obeyed, nothing sent or exported',
    async (tail, what) => {
      const { job, runnerTemp } = newJob()
      service().clearRequests()
      const template = `http://{name}-{user}.localhost:${service().tunnel!.frontPort}`
      const { main } = await job.uses(
        exposeInputs({ expose: String(web.port), 'url-template': `${template}${tail}` })
      )
      expectTunnelFailure(main, runnerTemp, `Input url-template is "${template}\\u000`)
      expect(annotations(main, 'error')[0]).toContain(
        `: it holds ${what} at character ${template.length + 1}.`
      )
      // Only the step's own commands: no annotation, mask or stop from the injected text.
      expect(main.commands.map(command => command.name)).toEqual(['add-mask', 'error'])
      expect(main.masks).toEqual([service().seed.provisionKey])
      expect(service().requests()).toEqual([])
      await job.end()
    },
    60_000
  )

  it('works with a free credential', async () => {
    const { job } = newJob()
    const { main } = await job.uses(
      exposeInputs({ credential: 'free', 'api-key': '', project: '', expose: String(web.port) })
    )
    expect(main.exitCode).toBe(0)
    expect(main.stdout).toContain('the tunnel ends when the credential does: after 5 minutes')
    expect(await get(main.outputs.url)).toMatchObject({ status: 200 })
    const [post] = await job.end()
    expect(post.stdout).toMatch(/Tunnel: up \d+ s, never down; 1 connection\b/)
  }, 60_000)

  it('two uses in one job each stop their own process', async () => {
    const { job, runnerTemp } = newJob()
    const first = await job.uses(exposeInputs({ expose: `web=${web.port}` }))
    const second = await job.uses(exposeInputs({ expose: `api=${api.port}` }))
    expect([first.main.exitCode, second.main.exitCode]).toEqual([0, 0])
    const pids = [first, second].map(
      use => (JSON.parse(use.main.state.tunnel) as { pid: number }).pid
    )
    expect(new Set(pids).size).toBe(2)
    expect(tunnelPids(runnerTemp).sort()).toEqual([...pids].sort())
    // Post steps run in reverse: the second use's first, which must leave the first's running.
    await second.post()
    expect(pids.map(isAlive)).toEqual([true, false])
    expect((await get(first.main.outputs.url)).status).toBe(200)
    await first.post()
    expect(pids.map(isAlive)).toEqual([false, false])
    await job.end()
  }, 60_000)

  it('starts no process without expose', async () => {
    const { job, runnerTemp } = newJob()
    const { main } = await job.uses(inputsFor(service()))
    expect(main.exitCode).toBe(0)
    expect(main.state.tunnel).toBeUndefined()
    expect(main.outputs.url).toBeUndefined()
    expect(readdirSync(runnerTemp).filter(name => name.startsWith('tunnel-'))).toEqual([])
    expect(
      service()
        .tunnel!.loginAttempts()
        .filter(a => a.user === main.outputs['tunnel-user'])
    ).toEqual([])
    await job.end()
  }, 60_000)
})
