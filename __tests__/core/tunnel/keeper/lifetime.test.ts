/**
 * The keeper ending by itself where no runner ends leftover processes: at its end time (while
 * connected, and while it waits to reconnect) and once the process it watches is gone. Against
 * ssh2 stand-ins, with a fake clock where time must pass.
 */
import { spawn } from 'node:child_process'
import { KeeperLifetime, processExists } from '../../../../src/core/tunnel/keeper/lifetime.js'
import {
  cleanUp,
  eventually,
  fakeClock,
  hostKey,
  runKeeper,
  startStandIn
} from '../../../helpers/ssh-stand-in.js'

afterEach(cleanUp)

const endTimeReason = (endAt: string) =>
  `it reached its end time ${endAt} (its longest life, or the credential's expiry if sooner)`

describe('the keeper with an end time', () => {
  it('ends at its end time while connected, recording why, and leaves the server', async () => {
    const clock = fakeClock()
    const endAt = new Date(clock.now() + 60_000).toISOString()
    let open = 0
    const server = await startStandIn({
      hostKeys: [hostKey('ed25519')],
      forwarded: connection => {
        open += 1
        connection.once('close', () => (open -= 1))
      }
    })
    const keeper = runKeeper(server.port, { endAt }, { now: clock.now, sleep: clock.sleep })
    expect(await keeper.report).toMatchObject({ type: 'ready' })
    // Ticks pass before the end time: it stays up.
    await new Promise(resolve => setTimeout(resolve, 600))
    expect(keeper.stats().state).toBe('ready')
    clock.advance(60_000)
    const stats = await keeper.done
    expect(stats).toMatchObject({ state: 'ended', endReason: endTimeReason(endAt) })
    expect(keeper.stats()).toMatchObject({
      state: 'ended',
      endedAt: endAt,
      endReason: endTimeReason(endAt)
    })
    expect(keeper.log()).toContain(`Ended: ${endTimeReason(endAt)}`)
    expect(keeper.log()).not.toContain('Stop requested')
    expect(server.logins).toHaveLength(1)
    expect(
      await eventually(
        () => open,
        count => count === 0
      )
    ).toBe(0)
  })

  it('stops reconnecting at its end time: no attempt after it', async () => {
    const clock = fakeClock()
    const endAt = new Date(clock.now() + 10_000).toISOString()
    const loginTimes: number[] = []
    // Every connection is dropped once up: the keeper reconnects, pausing longer each time.
    const server = await startStandIn({
      hostKeys: [hostKey('ed25519')],
      accept: () => {
        loginTimes.push(clock.now())
        return true
      },
      forwarded: connection => connection.end()
    })
    const keeper = runKeeper(server.port, { endAt }, { now: clock.now, sleep: clock.sleep })
    expect(await keeper.report).toMatchObject({ type: 'ready' })
    const stats = await keeper.done
    expect(stats).toMatchObject({ state: 'ended', endReason: endTimeReason(endAt) })
    // Pauses of 0.75, 1.5, 3 and 6 s: up at 0, 0.75, 2.25 and 5.25 s; the next would be at 11.25.
    expect(loginTimes.map(time => time - loginTimes[0])).toEqual([0, 750, 2250, 5250])
    expect(stats.reconnects).toBe(3)
    expect(keeper.log()).toContain(`Ended: ${endTimeReason(endAt)}`)
  })

  it('wakes from its wait between reconnect attempts at its end time', async () => {
    // Real time, and a pause that never ends by itself: only the end time can wake the keeper.
    const endAt = new Date(Date.now() + 1_500).toISOString()
    const server = await startStandIn({
      hostKeys: [hostKey('ed25519')],
      forwarded: connection => connection.end()
    })
    const keeper = runKeeper(server.port, { endAt }, { sleep: () => new Promise(() => undefined) })
    expect(await keeper.report).toMatchObject({ type: 'ready' })
    await eventually(keeper.log, log => log.includes('Connection lost; reconnecting'))
    expect(keeper.stats().state).toBe('reconnecting')
    const stats = await keeper.done
    expect(stats).toMatchObject({ state: 'ended', endReason: endTimeReason(endAt) })
    expect(Date.parse(stats.endedAt!)).toBeGreaterThanOrEqual(Date.parse(endAt))
    expect(server.logins).toHaveLength(1)
    expect(keeper.log()).not.toContain('Reconnect attempt')
  })
})

describe('the keeper watching a process', () => {
  it('ends once the process it watches is gone', async () => {
    const watched = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: 'ignore'
    })
    const exited = new Promise(resolve => watched.once('exit', resolve))
    const pid = watched.pid!
    try {
      const server = await startStandIn({ hostKeys: [hostKey('ed25519')] })
      const keeper = runKeeper(server.port, { watchPid: pid })
      expect(await keeper.report).toMatchObject({ type: 'ready' })
      // Ticks pass while it runs: the keeper stays up.
      await new Promise(resolve => setTimeout(resolve, 600))
      expect(keeper.stats().state).toBe('ready')
      watched.kill('SIGKILL')
      await exited
      const reason = `the process it watches (pid ${pid}) ended`
      expect(await keeper.done).toMatchObject({ state: 'ended', endReason: reason })
      expect(keeper.stats()).toMatchObject({ state: 'ended', endReason: reason })
      expect(keeper.log()).toContain(`Ended: ${reason}`)
    } finally {
      watched.kill('SIGKILL')
    }
  })
})

describe('KeeperLifetime', () => {
  it('counts a process it may not signal (EPERM) as running, and a free pid as gone', () => {
    expect(processExists(process.pid)).toBe(true)
    // pid 1 runs always; a user other than root may not signal it.
    expect(processExists(1)).toBe(true)
    expect(processExists(2 ** 30)).toBe(false)
  })

  it('ends nothing without an end time or a pid, and cuts pauses short at the end time', () => {
    const clock = fakeClock()
    expect(new KeeperLifetime({}, clock.now).due()).toBeUndefined()
    expect(new KeeperLifetime({}, clock.now).cap(30_000)).toBe(30_000)
    const endAt = new Date(clock.now() + 5_000).toISOString()
    const lifetime = new KeeperLifetime({ endAt }, clock.now)
    expect(lifetime.cap(30_000)).toBe(5_000)
    expect(lifetime.cap(1_000)).toBe(1_000)
    clock.advance(5_000)
    expect(lifetime.cap(30_000)).toBe(0)
    expect(lifetime.due()).toBe(endTimeReason(endAt))
  })

  it('says the credential expired when that comes first, and no more reconnects', () => {
    const clock = fakeClock()
    const expiresAt = new Date(clock.now() + 1_000).toISOString()
    const endAt = new Date(clock.now() + 5_000).toISOString()
    const lifetime = new KeeperLifetime({ endAt, expiresAt }, clock.now)
    expect(lifetime.noReconnect()).toBeUndefined()
    clock.advance(1_000)
    expect(lifetime.noReconnect()).toBe(`the credential expired at ${expiresAt}`)
    clock.advance(4_000)
    expect(lifetime.noReconnect()).toBe(endTimeReason(endAt))
  })
})
