/**
 * Post's stop of the tunnel process main saved: what it says when the process ended during the
 * job, and that it signals only a process it can prove is the keeper it started. Through the
 * in-memory host, naming its temp root as the runner's RUNNER_TEMP.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startLocalApp } from '../../../../scripts/openssh.js'
import { systemClock } from '../../../../src/core/clock.js'
import { directoryId as dirIdOf } from '../../../../src/core/owned-dir.js'
import { keeperEnvironment } from '../../../../src/core/tunnel/main/keeper-environment.js'
import { prepareTunnel } from '../../../../src/core/tunnel/main/open.js'
import { tunnelFiles } from '../../../../src/core/tunnel/protocol.js'
import { loadTunnel } from '../../../../src/core/tunnel/saved/saved-tunnel.js'
import { stopSavedTunnel } from '../../../../src/core/tunnel/post/stop-saved.js'
import { isProcessAlive, type StopOptions } from '../../../../src/core/tunnel/post/stop.js'
import { memoryHost, type MemoryHostOptions } from '../../../helpers/memory-host.js'
import { inputLabel, stepOf } from '../../../helpers/memory-step.js'
import { DEFAULT_REQUEST_HANDLING } from '../../../../src/core/settings/request-handling.js'

const launch = {
  scriptPath: fileURLToPath(new URL('../../../../src/core/tunnel/keeper/main.ts', import.meta.url)),
  execArgv: ['--import', 'tsx'],
  environment: keeperEnvironment(process.env, [])
}
let app: Awaited<ReturnType<typeof startLocalApp>>
let runnerTemp: string

beforeAll(async () => {
  app = await startLocalApp('answer from the local app')
  runnerTemp = mkdtempSync(join(tmpdir(), 'stop-saved-test-'))
})
afterAll(async () => {
  await app.close()
  rmSync(runnerTemp, { recursive: true, force: true })
})

/** A host on the runner's temp root and the system's clock, as post's is. */
const hostWith = (more: MemoryHostOptions = {}) =>
  memoryHost({
    label: inputLabel,
    tempRoot: runnerTemp,
    tempRootName: 'RUNNER_TEMP',
    clock: { ...systemClock, sleeps: [] },
    ...more
  })
/** Post's tunnel stop, on what `state` records. */
const closeTunnel = async (state: Record<string, string>, options?: StopOptions) => {
  const host = hostWith({ state })
  const loaded = loadTunnel(host.state, host.tempRoot)
  if (loaded) await stopSavedTunnel(loaded, host, options)
  return stepOf(host)
}

describe('stopSavedTunnel', () => {
  function savedTunnel(stats?: object): Record<string, string> {
    const dir = mkdtempSync(join(runnerTemp, 'tunnel-'))
    const files = tunnelFiles(dir)
    if (stats) writeFileSync(files.statsPath, JSON.stringify(stats))
    writeFileSync(files.logPath, '2026-11-23T10:04:00.000Z Ended: the credential expired\n')
    return {
      tunnel: JSON.stringify({
        pid: 2147483646,
        dir,
        dirId: dirIdOf(dir),
        startTime: '1',
        started: true
      })
    }
  }
  const stats = {
    pid: 2147483646,
    startedAt: '2026-11-23T10:00:00.000Z',
    readyAt: '2026-11-23T10:00:00.000Z',
    updatedAt: '2026-11-23T10:04:00.000Z',
    state: 'ended',
    reconnects: 0,
    connections: 3,
    bytesIn: 10,
    bytesOut: 20,
    localErrors: 0,
    endedAt: '2026-11-23T10:04:00.000Z',
    endReason: 'the credential expired at 2026-11-23T10:04:00.000Z'
  }

  it('warns when the tunnel process ended during the job, with when and why', async () => {
    const state = savedTunnel(stats)
    const step = await closeTunnel(state)
    expect(step.warnings).toEqual([
      expect.stringMatching(
        /^The tunnel process ended during the job, at 2026-11-23T10:04:00.000Z: the credential expired at 2026-11-23T10:04:00.000Z\.$/
      )
    ])
    // Its process is gone: so is its folder.
    expect(existsSync(JSON.parse(state.tunnel).dir)).toBe(false)
    expect(step.lines).toContain(
      'Tunnel: up 4 min 0 s; 3 connections, 10 B in / 20 B out, 0 reconnects, 0 local connection errors.'
    )
  })

  const { endedAt: _e, endReason: _r, ...ended } = stats
  const running = { ...ended, state: 'ready' }

  /** A process whose command line ends with `dir`, as the keeper's does; its parent may never reap it. */
  function standIn(
    dir: string,
    script: string,
    neverReaped = false
  ): Promise<ChildProcess & { keeperPid: number }> {
    const node = JSON.stringify(process.execPath)
    const child = neverReaped
      ? // The shell starts the stand-in, then becomes `sleep`, which never waits for its children.
        spawn('sh', ['-c', `${node} -e "$0" "$1" & echo $!; exec sleep 30`, script, dir])
      : // It says when its SIGTERM handler is in place: on a busy machine 300 ms may not do.
        spawn(process.execPath, ['-e', `${script}; process.stdout.write('ready\\n')`, dir])
    // Given time to start, so that its command line is node's and SIGTERM has its handler.
    const started = (pid: number) =>
      new Promise<ChildProcess & { keeperPid: number }>(resolve =>
        setTimeout(() => resolve(Object.assign(child, { keeperPid: pid })), 300)
      )
    if (!neverReaped) {
      return new Promise(resolve => child.stdout!.once('data', () => resolve(started(child.pid!))))
    }
    return new Promise(resolve =>
      child.stdout!.once('data', data => resolve(started(Number(String(data).trim()))))
    )
  }
  const startTimeOf = (pid: number) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  }
  const idle = 'process.on("SIGTERM", () => process.exit(0)); setInterval(() => {}, 1000)'
  const stubborn = 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)'

  function stateFor(pid: number, dir: string, startTime: string): Record<string, string> {
    return {
      tunnel: JSON.stringify({ pid, dir, dirId: dirIdOf(dir), startTime, started: true })
    }
  }

  it('kills a keeper that does not stop within the grace period, and warns', async () => {
    const dir = mkdtempSync(join(runnerTemp, 'tunnel-'))
    const keeper = await standIn(dir, stubborn)
    const stats = { ...running, pid: keeper.keeperPid }
    writeFileSync(tunnelFiles(dir).statsPath, JSON.stringify(stats))
    const exited = new Promise(resolve => keeper.once('exit', resolve))
    const step = await closeTunnel(stateFor(keeper.keeperPid, dir, startTimeOf(keeper.keeperPid)), {
      graceMs: 200
    })
    expect(step.warnings).toEqual([
      `The tunnel process ${keeper.keeperPid} did not stop within 5 s of being asked, so it was killed.`
    ])
    expect(await exited).toBeDefined()
  })

  it('never signals another process that got the pid of a keeper killed with SIGKILL, nor removes the folder', async () => {
    const dir = mkdtempSync(join(runnerTemp, 'tunnel-'))
    // The keeper, killed hard, recorded no end; its pid now belongs to an unrelated process.
    const unrelated = await standIn(join(runnerTemp, 'elsewhere'), idle)
    writeFileSync(tunnelFiles(dir).statsPath, JSON.stringify({ ...running, pid: unrelated.pid }))
    try {
      const step = await closeTunnel(stateFor(unrelated.pid!, dir, '1'), { graceMs: 200 })
      expect(step.warnings).toEqual([
        expect.stringMatching(
          /^The tunnel process ended during the job, at some time after 2026-11-23T10:04:00.000Z: it was ended from outside/
        ),
        // A live process under the saved pid may be one that uses the folder: the state alone
        // cannot tell a pid given again from a state that names another process on purpose.
        expect.stringMatching(
          /^The tunnel's folder .* was left as it is, .*is running and is not the tunnel process/
        )
      ])
      expect(existsSync(tunnelFiles(dir).statsPath)).toBe(true)
      expect(isProcessAlive(unrelated.pid!)).toBe(true)
      expect(unrelated.exitCode).toBeNull()
      expect(unrelated.signalCode).toBeNull()
    } finally {
      unrelated.kill('SIGKILL')
    }
  })

  it('takes a stopped keeper nobody reaps (a zombie) as stopped: no wait, no warning', async () => {
    const dir = mkdtempSync(join(runnerTemp, 'tunnel-'))
    const parent = await standIn(dir, idle, true)
    const pid = parent.keeperPid
    writeFileSync(tunnelFiles(dir).statsPath, JSON.stringify({ ...running, pid }))
    try {
      const began = Date.now()
      const step = await closeTunnel(stateFor(pid, dir, startTimeOf(pid)))
      expect(Date.now() - began).toBeLessThan(2_000)
      expect(step.warnings).toEqual([])
      // It did stop, and waits unreaped: the case post must not mistake for a running process.
      expect(readFileSync(`/proc/${pid}/stat`, 'utf8')).toMatch(/\) Z /)
    } finally {
      parent.kill('SIGKILL')
    }
  })

  it('stops a keeper main started but never configured, when main went away without ending it', async () => {
    const main = hostWith({ keeperLaunch: launch })
    const prepared = prepareTunnel(
      {
        entries: [{ name: 'web', host: 'localhost', port: app.port }],
        hostKeyPins: [],
        urlTemplate: 'http://{name}-{user}.localhost:9',
        ...DEFAULT_REQUEST_HANDLING
      },
      main
    )
    const saved = JSON.parse(main.saved.tunnel) as { pid: number; started: boolean }
    expect(saved.started).toBe(false)
    expect(isProcessAlive(saved.pid)).toBe(true)
    const after = await closeTunnel(main.saved)
    expect(after.warnings).toEqual([])
    for (let i = 0; i < 50 && isProcessAlive(saved.pid); i++)
      await new Promise(r => setTimeout(r, 100))
    expect(isProcessAlive(saved.pid)).toBe(false)
    await prepared.stopUnused()
  }, 15_000)

  it('warns, sending no signal, where the pid cannot be proven and the stop is not recorded', async () => {
    const dir = mkdtempSync(join(runnerTemp, 'tunnel-'))
    writeFileSync(tunnelFiles(dir).statsPath, JSON.stringify({ ...running, pid: 2147483646 }))
    const step = await closeTunnel(stateFor(2147483646, dir, '1'), {
      graceMs: 0,
      lookUp: () => ({
        state: 'unknown',
        reason: 'Windows offers no start time to check the pid against'
      }),
      signal: () => {
        throw new Error('must not signal')
      }
    })
    expect(step.warnings).toEqual([
      'The tunnel process 2147483646 was asked to stop but not made to: Windows offers no start time to check the pid against, and it did not record a stop, ' +
        'so no signal was sent in case the pid now belongs to another process. If the tunnel URL still answers, end the process by hand; on a hosted runner the job end does it.'
    ])
  })

  it('warns instead of failing when stopping throws, and does nothing without a saved tunnel', async () => {
    const dir = mkdtempSync(join(runnerTemp, 'tunnel-'))
    const step = await closeTunnel(stateFor(2147483646, dir, '1'), {
      lookUp: () => {
        throw new Error('no process table')
      }
    })
    expect(step.failed).toBe(false)
    expect(step.warnings).toEqual([
      expect.stringMatching(/^Could not stop the tunnel process 2147483646: no process table\./)
    ])
    const none = await closeTunnel({})
    expect(none.lines).toEqual([])
  })
})
