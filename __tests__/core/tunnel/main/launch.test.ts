/**
 * Main's and post's side of the tunnel process: the keeper really runs as a detached child
 * (its TypeScript source through tsx) against the service's tunnel stand-in.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createServer, type AddressInfo } from 'node:net'
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { getThroughFront, startLocalApp } from '../../../../scripts/openssh.js'
import { startCredentialService, type RunningService } from '../../../../service/server.js'
import {
  PROOF_PATH_PREFIX,
  proofAnswer,
  type KeeperStats
} from '../../../../src/core/tunnel/protocol.js'
import {
  launchKeeper,
  startTunnel,
  type StartOptions
} from '../../../../src/core/tunnel/main/launch.js'
import { lookUpProcess } from '../../../../src/core/tunnel/saved/process-identity.js'
import { isProcessAlive, stopTunnel } from '../../../../src/core/tunnel/post/stop.js'
import type { ProcessLook } from '../../../../src/core/tunnel/saved/process-identity.js'
import { directoryId } from '../../../../src/core/owned-dir.js'
import { isTunnelDir } from '../../../../src/core/tunnel/saved/accepted-dir.js'
import { tunnelFiles } from '../../../../src/core/tunnel/protocol.js'

const keeperSource = fileURLToPath(
  new URL('../../../../src/core/tunnel/keeper/main.ts', import.meta.url)
)
let service: RunningService
let app: Awaited<ReturnType<typeof startLocalApp>>
const dirs: string[] = []

beforeAll(async () => {
  service = await startCredentialService({ tunnel: { checkIntervalMs: 50 } })
  app = await startLocalApp('answer from the local app')
})
afterAll(async () => {
  await app.close()
  await service.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tunnel-process-test-'))
  dirs.push(dir)
  return dir
}

async function provision(): Promise<{ user: string; token: string }> {
  const response = await fetch(`${service.baseUrl}/credential-provision`, {
    method: 'POST',
    headers: { 'x-api-key': service.seed.provisionKey },
    body: JSON.stringify({ project: service.seed.project })
  })
  const body = (await response.json()) as { token: string; tunnel_user: string }
  return { user: body.tunnel_user, token: body.token }
}

async function options(overrides: Partial<StartOptions['config']> = {}): Promise<StartOptions> {
  const { user, token } = await provision()
  return {
    scriptPath: keeperSource,
    execArgv: ['--import', 'tsx'],
    environment: { PATH: process.env.PATH ?? '' },
    tempRoot: scratch(),
    tempRootName: 'RUNNER_TEMP',
    config: {
      host: service.tunnel!.host,
      port: service.tunnel!.port,
      user,
      token,
      entries: [{ name: 'web', host: 'localhost', port: app.port }],
      hostKeyPins: [],
      attemptTimeoutMs: 10_000,
      maxAttempts: 1,
      ...overrides
    }
  }
}

/** What main saves for a keeper started through startTunnel, rebuilt from what the OS says. */
function launchedSaved(runnerTemp: string, pid: number) {
  const [name] = readdirSync(runnerTemp).filter(entry => entry.startsWith('tunnel-'))
  const dir = join(runnerTemp, name)
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const startTime = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  return { pid, dir, dirId: directoryId(dir), startTime }
}

/** The pid the keeper wrote into its stats file, found under the RUNNER_TEMP it was given. */
describe('startTunnel and stopTunnel', () => {
  it('starts a detached keeper that serves after start returns, and stops it', async () => {
    const start = await options()
    const started = await startTunnel(start)
    expect(started.fingerprint).toBe(service.tunnel!.fingerprint)
    expect(isTunnelDir(started.dir, start.tempRoot)).toBe(true)
    expect(isProcessAlive(started.pid)).toBe(true)
    const host = `web-${start.config.user}.localhost`
    expect(await getThroughFront(service.tunnel!.frontPort, host)).toMatchObject({ status: 200 })
    // The token is in no file the keeper writes.
    expect(readFileSync(started.logPath, 'utf8')).not.toContain(start.config.token)

    const stopped = await stopTunnel({
      ...launchedSaved(start.tempRoot, started.pid),
      started: true
    })
    expect(stopped.killed).toBe(false)
    expect(stopped.died).toBeUndefined()
    expect(stopped.stats).toMatchObject({ pid: started.pid, state: 'stopped', connections: 1 })
    // Gone or a zombie this test process has not reaped yet (a busy machine): stopped either way.
    expect(lookUpProcess(started.pid).state).toBe('gone')
    expect((await getThroughFront(service.tunnel!.frontPort, host)).status).toBe(502)
  }, 30_000)

  it('fails with the cause and leaves no process when the host key is not pinned', async () => {
    const start = await options({
      hostKeyPins: [{ fingerprint: 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU' }]
    })
    const keeper = launchKeeper(start)
    await expect(keeper.start(start.config)).rejects.toThrow(
      `The tunnel did not start: the tunnel server's host key is ${service.tunnel!.fingerprint}, which tunnel-host-key does not list, so the connection was left before the token was sent.`
    )
    expect(isProcessAlive(keeper.pid!)).toBe(false)
    // Nothing is left behind: not its folder either.
    expect(readdirSync(start.tempRoot)).toEqual([])
    expect(service.tunnel!.loginAttempts().filter(a => a.user === start.config.user)).toEqual([])
  }, 30_000)

  it('fails saying the process died when the keeper exits before it is ready', async () => {
    const dir = scratch()
    const script = join(dir, 'exits.cjs')
    writeFileSync(script, 'process.exit(3)\n')
    const start = { ...(await options()), scriptPath: script, execArgv: [] }
    await expect(startTunnel(start)).rejects.toThrow(
      /^The tunnel did not start: the tunnel process exited before it was ready \(exit code 3\)\. The last line of its log: /
    )
    expect(readdirSync(start.tempRoot)).toEqual([])
  })

  it('kills a keeper that never answers once the wait is over', async () => {
    const dir = scratch()
    const script = join(dir, 'silent.cjs')
    writeFileSync(
      script,
      `require('fs').writeFileSync(${JSON.stringify(join(dir, 'pid'))}, String(process.pid)); setInterval(() => {}, 1000)\n`
    )
    const start = {
      ...(await options({ attemptTimeoutMs: 100 })),
      scriptPath: script,
      execArgv: []
    }
    await expect(startTunnel(start)).rejects.toThrow(
      'The tunnel did not start: the tunnel process was not ready within 5 s.'
    )
    expect(isProcessAlive(Number(readFileSync(join(dir, 'pid'), 'utf8')))).toBe(false)
  }, 15_000)
})

describe("main's word that the URL proof is over", () => {
  it('reaches the keeper over IPC: a nonce it was handed is answered before letGo, and not after', async () => {
    const start = await options()
    const host = `web-${start.config.user}.localhost`
    const { frontPort } = service.tunnel!
    const key = randomBytes(32).toString('hex')
    const [before, after] = [0, 1].map(() => randomBytes(16).toString('hex'))
    const started = await startTunnel({
      ...start,
      config: {
        ...start.config,
        // The gate keeps every connection in the HTTP layer, so the proof path is judged each time.
        protect: true,
        gateSecret: randomBytes(32).toString('base64url'),
        proveUrl: true,
        proofKey: key,
        proofRequests: [before, after].map(nonce => ({
          entry: 'web',
          nonce,
          host: `${host}:${frontPort}`,
          defaultPort: 80
        }))
      }
    })
    try {
      expect(await getThroughFront(frontPort, host, `${PROOF_PATH_PREFIX}${before}`)).toEqual({
        status: 200,
        body: proofAnswer(key, 'web', before)
      })
      started.letGo()
      // The keeper hears it a moment later; until then it would still answer.
      await new Promise(resolve => setTimeout(resolve, 1_000))
      const late = await getThroughFront(frontPort, host, `${PROOF_PATH_PREFIX}${after}`)
      expect(late.status).toBe(401)
      expect(late.body).not.toContain(proofAnswer(key, 'web', after))
      expect(isProcessAlive(started.pid)).toBe(true)
    } finally {
      await stopTunnel({ ...launchedSaved(start.tempRoot, started.pid), started: true })
    }
  }, 30_000)
})

describe('a keeper that ends by itself', () => {
  const gone = async (pid: number) => {
    for (let i = 0; i < 100 && isProcessAlive(pid); i++)
      await new Promise(resolve => setTimeout(resolve, 100))
    return !isProcessAlive(pid)
  }
  const statsOf = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as KeeperStats

  it('leaves at its end time, its record and log saying why, and the URL stops working', async () => {
    const endAt = new Date(Date.now() + 3_000).toISOString()
    const start = await options({ endAt })
    const started = await startTunnel(start)
    const host = `web-${start.config.user}.localhost`
    expect(await getThroughFront(service.tunnel!.frontPort, host)).toMatchObject({ status: 200 })
    expect(await gone(started.pid)).toBe(true)
    const reason = `it reached its end time ${endAt} (its longest life, or the credential's expiry if sooner)`
    expect(statsOf(started.statsPath)).toMatchObject({ state: 'ended', endReason: reason })
    expect(readFileSync(started.logPath, 'utf8')).toContain(`Ended: ${reason}`)
    expect((await getThroughFront(service.tunnel!.frontPort, host)).status).toBe(502)
  }, 30_000)

  it('leaves once the process it watches is gone', async () => {
    const watched = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: 'ignore'
    })
    try {
      const started = await startTunnel(await options({ watchPid: watched.pid! }))
      await new Promise(resolve => setTimeout(resolve, 500))
      expect(isProcessAlive(started.pid)).toBe(true)
      watched.kill('SIGKILL')
      expect(await gone(started.pid)).toBe(true)
      expect(statsOf(started.statsPath)).toMatchObject({
        state: 'ended',
        endReason: `the process it watches (pid ${watched.pid}) ended`
      })
    } finally {
      watched.kill('SIGKILL')
    }
  }, 30_000)
})

describe('launchKeeper', () => {
  const exitOf = (pid: number) =>
    new Promise<void>(resolve => {
      const poll = setInterval(() => {
        if (!isProcessAlive(pid)) resolve(clearInterval(poll))
      }, 20)
    })

  it('starts a keeper that waits for its configuration, then serves once started', async () => {
    const start = await options()
    const keeper = launchKeeper(start)
    // Waiting, as during main's request for the credential: alive, but holding nothing yet.
    await new Promise(resolve => setTimeout(resolve, 500))
    expect(isProcessAlive(keeper.pid!)).toBe(true)
    const started = await keeper.start(start.config)
    expect(started.pid).toBe(keeper.pid)
    const host = `web-${start.config.user}.localhost`
    expect(await getThroughFront(service.tunnel!.frontPort, host)).toMatchObject({ status: 200 })
    await keeper.stopUnused() // once started, it does nothing
    expect(isProcessAlive(started.pid)).toBe(true)
    expect(keeper.ready).toBe(true)
    expect(keeper.saved).toEqual({
      pid: started.pid,
      dir: started.dir,
      dirId: directoryId(started.dir),
      startTime: expect.stringMatching(/^\d+$/),
      started: false
    })
    await stopTunnel({ ...keeper.saved!, started: true })
    expect(lookUpProcess(started.pid).state).toBe('gone')
  }, 30_000)

  it('leaves no process and no directory when stopped before it was started', async () => {
    const start = await options()
    const keeper = launchKeeper(start)
    expect(readdirSync(start.tempRoot)).toHaveLength(1)
    await keeper.stopUnused()
    expect(isProcessAlive(keeper.pid!)).toBe(false)
    expect(readdirSync(start.tempRoot)).toEqual([])
    await expect(keeper.start(start.config)).rejects.toThrow('already started or stopped')
  })

  it('fails start() saying so when the keeper died while it waited', async () => {
    const dir = scratch()
    const script = join(dir, 'exits.cjs')
    writeFileSync(script, 'process.exit(4)\n')
    const start = await options()
    const keeper = launchKeeper({ ...start, scriptPath: script, execArgv: [] })
    await exitOf(keeper.pid!)
    await expect(keeper.start(start.config)).rejects.toThrow(
      /^The tunnel did not start: the tunnel process exited before it was ready \(exit code 4\)\./
    )
  })
})

describe('the keeper process', () => {
  it('leaves when main goes away before sending its configuration', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', keeperSource], {
      stdio: ['ignore', 'ignore', 'ignore', 'ipc']
    })
    const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)))
    await new Promise(resolve => setTimeout(resolve, 1_000))
    child.disconnect()
    expect(await exited).toBe(3)
  }, 15_000)

  it('leaves when main goes away before it was ready, since no post step would stop it', async () => {
    const silent = createServer(() => undefined)
    await new Promise<void>(resolve => silent.listen(0, '127.0.0.1', resolve))
    const dir = scratch()
    const child = spawn(process.execPath, ['--import', 'tsx', keeperSource], {
      stdio: ['ignore', 'ignore', 'ignore', 'ipc']
    })
    const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)))
    child.send({
      ...(await options()).config,
      port: (silent.address() as AddressInfo).port,
      attemptTimeoutMs: 60_000,
      ...tunnelFiles(dir)
    })
    // The keeper is connecting (the server never answers) when main's side of IPC goes away.
    await new Promise(resolve => setTimeout(resolve, 1_000))
    child.disconnect()
    expect(await exited).toBe(3)
    silent.close()
  }, 15_000)
})

describe('stopTunnel without a real process', () => {
  const stats: KeeperStats = {
    pid: 99,
    startedAt: '2026-11-23T10:00:00.000Z',
    readyAt: '2026-11-23T10:00:01.000Z',
    updatedAt: '2026-11-23T10:05:00.000Z',
    state: 'ready',
    reconnects: 1,
    connections: 12,
    bytesIn: 2048,
    bytesOut: 5 * 1024 * 1024,
    localErrors: 0
  }
  function saved(written?: KeeperStats) {
    const dir = mkdtempSync(join(scratch(), 'tunnel-'))
    const paths = { pid: 99, dir, dirId: directoryId(dir), startTime: '4242', started: true }
    if (written) writeFileSync(tunnelFiles(dir).statsPath, JSON.stringify(written))
    return paths
  }
  const keeperLook = (dir: string): ProcessLook => ({
    state: 'running',
    startTime: '4242',
    args: `node --expose-gc /action/dist/tunnel/index.cjs ${dir}`
  })
  const instant = { sleep: async () => undefined }
  const mustNotSignal = () => {
    throw new Error('must not signal')
  }

  it('asks with the stop file and SIGTERM, and kills after the grace period', async () => {
    let clock = 0
    const signals: string[] = []
    const paths = saved(stats)
    const result = await stopTunnel(paths, {
      ...instant,
      now: () => (clock += 1000),
      lookUp: () =>
        signals.some(sent => sent.startsWith('SIGKILL'))
          ? { state: 'gone' }
          : keeperLook(paths.dir),
      signal: (pid, name) => signals.push(`${name} ${pid}`)
    })
    expect(readFileSync(tunnelFiles(paths.dir).stopPath, 'utf8')).toBe('stop\n')
    expect(signals).toEqual(['SIGTERM 99', 'SIGKILL 99'])
    expect(result).toEqual({ state: 'stopped', stats, killed: true })
  })

  it('keeps the folder of a keeper that still runs after SIGKILL', async () => {
    const paths = saved(stats)
    const result = await stopTunnel(paths, {
      ...instant,
      now: (
        clock => () =>
          (clock += 1000)
      )(0),
      lookUp: () => keeperLook(paths.dir),
      signal: () => undefined
    })
    expect(result).toMatchObject({ state: 'stopped', killed: true, folderKept: expect.any(String) })
  })

  it('does not touch a pid whose keeper recorded its own end and is gone', async () => {
    const ended = {
      ...stats,
      state: 'ended' as const,
      endedAt: '2026-11-23T10:03:00.000Z',
      endReason: 'the credential expired'
    }
    const result = await stopTunnel(saved(ended), {
      ...instant,
      lookUp: () => ({ state: 'gone' }),
      signal: mustNotSignal
    })
    expect(result).toEqual({
      state: 'gone',
      stats: ended,
      killed: false,
      died: { at: '2026-11-23T10:03:00.000Z', reason: 'the credential expired' }
    })
  })

  it('says when a keeper vanished, from its last stats and log line', async () => {
    const paths = saved(stats)
    writeFileSync(
      tunnelFiles(paths.dir).logPath,
      'first\n2026-11-23T10:04:59.000Z Reconnected (reconnect 1)\n'
    )
    expect(await stopTunnel(paths, { ...instant, lookUp: () => ({ state: 'gone' }) })).toEqual({
      state: 'gone',
      stats,
      killed: false,
      died: {
        at: 'some time after 2026-11-23T10:05:00.000Z',
        reason:
          'it was ended from outside (its last log line: 2026-11-23T10:04:59.000Z Reconnected (reconnect 1))'
      }
    })
  })

  it.each([
    ['another start time', (dir: string) => ({ ...keeperLook(dir), startTime: '4243' })],
    [
      'another command line',
      (dir: string) => ({ ...keeperLook(dir), args: `node ${dir} something-else` })
    ],
    ['a zombie', () => ({ state: 'gone' }) as const]
  ])('signals no process under the pid with %s', async (_label, look) => {
    const paths = saved(stats)
    const result = await stopTunnel(paths, {
      ...instant,
      lookUp: () => look(paths.dir),
      signal: mustNotSignal
    })
    expect(result.killed).toBe(false)
    expect(result.died?.reason).toMatch(/^it was ended from outside/)
  })

  it('is quiet about a keeper that never became ready and is gone', async () => {
    const result = await stopTunnel(
      { ...saved(), started: false },
      { ...instant, lookUp: () => ({ state: 'gone' }), signal: mustNotSignal }
    )
    // No news of its end; but no record of it either, so its folder is not proven to be its.
    expect(result).toEqual({
      state: 'gone',
      killed: false,
      folderKept:
        "it holds no record of the tunnel process 99, so nothing proves it was that process's folder"
    })
  })

  it('without a way to prove the pid, asks by file only and says it could not make sure', async () => {
    let clock = 0
    const paths = saved(stats)
    const result = await stopTunnel(paths, {
      ...instant,
      now: () => (clock += 1000),
      lookUp: () => ({
        state: 'unknown',
        reason: 'Windows offers no start time to check the pid against'
      }),
      signal: mustNotSignal
    })
    expect(readFileSync(tunnelFiles(paths.dir).stopPath, 'utf8')).toBe('stop\n')
    expect(result).toEqual({
      state: 'alive',
      stats,
      killed: false,
      unproven:
        'Windows offers no start time to check the pid against, and it did not record a stop'
    })
  })

  it('without a way to prove the pid, asks a keeper that was never ready by file, quietly', async () => {
    const paths = { ...saved(), started: false }
    const result = await stopTunnel(paths, {
      ...instant,
      lookUp: () => ({ state: 'unknown', reason: 'no proof' }),
      signal: mustNotSignal
    })
    expect(readFileSync(tunnelFiles(paths.dir).stopPath, 'utf8')).toBe('stop\n')
    expect(result).toEqual({
      state: 'gone',
      killed: false,
      folderKept: 'no proof, so nothing proves the tunnel process 99 is gone'
    })
  })

  it('reports the end a keeper recorded on its own just before post stopped it', async () => {
    const ended = {
      ...stats,
      state: 'ended' as const,
      endedAt: '2026-11-23T10:06:00.000Z',
      endReason: 'the credential expired'
    }
    const paths = saved(ended)
    let gone = false
    const result = await stopTunnel(paths, {
      ...instant,
      lookUp: () => (gone ? { state: 'gone' } : keeperLook(paths.dir)),
      signal: () => (gone = true)
    })
    expect(result).toEqual({
      state: 'stopped',
      stats: ended,
      killed: false,
      died: { at: '2026-11-23T10:06:00.000Z', reason: 'the credential expired' }
    })
  })

  it('does not write the stop file through a link planted in its place', async () => {
    const paths = saved(stats)
    const target = join(scratch(), 'precious')
    writeFileSync(target, 'keep')
    symlinkSync(target, tunnelFiles(paths.dir).stopPath)
    let gone = false
    await stopTunnel(paths, {
      ...instant,
      lookUp: () => (gone ? { state: 'gone' } : keeperLook(paths.dir)),
      signal: () => (gone = true)
    })
    expect(readFileSync(target, 'utf8')).toBe('keep')
  })
})
