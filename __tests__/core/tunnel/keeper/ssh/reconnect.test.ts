/**
 * How often the keeper connects: the backoff, the login ceiling, and refused logins after a
 * drop. Against ssh2 stand-ins that misbehave, with a fake clock that the keeper's sleeps move.
 */
import {
  ConnectPacing,
  LOGINS_PER_MINUTE,
  REFUSALS_BEFORE_GIVING_UP,
  reconnectDelayMs
} from '../../../../../src/core/tunnel/keeper/ssh/reconnect.js'
import {
  cleanUp,
  eventually,
  fakeClock,
  hostKey,
  runKeeper,
  startStandIn
} from '../../../../helpers/ssh-stand-in.js'

afterEach(cleanUp)

describe('reconnectDelayMs', () => {
  it('doubles from 1 s to 30 s, with jitter of a quarter either way', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map(n => reconnectDelayMs(n, () => 0.5))).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000
    ])
    expect(reconnectDelayMs(1, () => 0)).toBe(750)
    expect(reconnectDelayMs(1, () => 1)).toBe(1250)
  })
})

describe('ConnectPacing', () => {
  it('goes back to the shortest pause only after a connection stayed up a minute', () => {
    const clock = fakeClock()
    const pacing = new ConnectPacing(clock.now, () => 0.5)
    expect([pacing.nextDelayMs(), pacing.nextDelayMs(), pacing.nextDelayMs()]).toEqual([
      1000, 2000, 4000
    ])
    pacing.connected()
    clock.advance(59_000)
    pacing.dropped()
    expect(pacing.nextDelayMs()).toBe(8000)
    pacing.connected()
    clock.advance(60_000)
    pacing.dropped()
    expect(pacing.nextDelayMs()).toBe(1000)
  })

  it('holds the seventh attempt in a minute until the first is a minute old', () => {
    const clock = fakeClock()
    const pacing = new ConnectPacing(clock.now, () => 0)
    for (let i = 0; i < LOGINS_PER_MINUTE; i++) {
      expect(pacing.waitForCeilingMs()).toBe(0)
      pacing.attemptStarted()
      clock.advance(1_000)
    }
    expect(pacing.waitForCeilingMs()).toBe(54_000)
    clock.advance(54_000)
    expect(pacing.waitForCeilingMs()).toBe(0)
  })
})

/** The most logins in any minute of `times`. */
function mostInAMinute(times: number[]): number {
  return Math.max(...times.map(start => times.filter(t => t >= start && t < start + 60_000).length))
}

describe('the keeper against a server that accepts the login and drops the connection', () => {
  it('keeps to the login ceiling and does not start the backoff again after each login', async () => {
    const clock = fakeClock()
    const loginTimes: number[] = []
    const server = await startStandIn({
      hostKeys: [hostKey('ed25519')],
      accept: () => {
        loginTimes.push(clock.now())
        return true
      },
      forwarded: connection => connection.end()
    })
    const keeper = runKeeper(server.port, {}, { now: clock.now, sleep: clock.sleep })
    expect(await keeper.report).toMatchObject({ type: 'ready' })
    await eventually(
      () => server.logins.length,
      count => count >= 14
    )
    keeper.keeper.stop()
    const stats = await keeper.done
    expect(mostInAMinute(loginTimes)).toBeLessThanOrEqual(LOGINS_PER_MINUTE)
    expect(loginTimes.length).toBeGreaterThanOrEqual(14)
    // The pause grew to its longest (30 s less a quarter of jitter) and stayed there.
    const gaps = loginTimes.slice(1).map((time, i) => time - loginTimes[i])
    expect(gaps.slice(-5).every(gap => gap >= 22_500)).toBe(true)
    // Up again after each drop (the last login or two may still be under way at the stop).
    expect(stats.reconnects).toBeGreaterThanOrEqual(11)
    expect(keeper.log()).toContain(`at most ${LOGINS_PER_MINUTE} connection attempts a minute`)
  })
})

describe('the keeper when a reconnect is refused', () => {
  it('tries again after one refusal while the credential is valid, and is up again', async () => {
    const clock = fakeClock()
    // Login 1 is the start; the server drops it, refuses login 2, accepts login 3.
    const server = await startStandIn({
      hostKeys: [hostKey('ed25519')],
      accept: n => n !== 2,
      forwarded: (connection, n) => {
        if (n === 1) connection.end()
      }
    })
    const keeper = runKeeper(server.port, {}, { now: clock.now, sleep: clock.sleep })
    expect(await keeper.report).toMatchObject({ type: 'ready' })
    await eventually(keeper.log, log => log.includes('Reconnected (reconnect 1)'))
    expect(keeper.log()).toContain(
      'Reconnect attempt 1 failed: the tunnel server refused the credential of stand-in-user'
    )
    expect(server.logins.map(login => login.accepted)).toEqual([true, false, true])
    keeper.keeper.stop()
    expect(await keeper.done).toMatchObject({ state: 'stopped', reconnects: 1 })
  })

  it('gives up after a bounded number of refusals in a row, saying so', async () => {
    const clock = fakeClock()
    const server = await startStandIn({
      hostKeys: [hostKey('ed25519')],
      accept: n => n === 1,
      forwarded: connection => connection.end()
    })
    const keeper = runKeeper(server.port, {}, { now: clock.now, sleep: clock.sleep })
    expect(await keeper.report).toMatchObject({ type: 'ready' })
    const stats = await keeper.done
    expect(stats).toMatchObject({ state: 'ended', reconnects: 0 })
    expect(stats.endReason).toMatch(
      new RegExp(
        `^the tunnel server refused the credential of stand-in-user ${REFUSALS_BEFORE_GIVING_UP} times in a row since the connection was lost`
      )
    )
    // The start's login, then the refused ones: no more.
    expect(server.logins.filter(login => !login.accepted)).toHaveLength(REFUSALS_BEFORE_GIVING_UP)
    expect(server.logins).toHaveLength(1 + REFUSALS_BEFORE_GIVING_UP)
    expect(keeper.log()).toContain(
      `Ended: the tunnel server refused the credential of stand-in-user ${REFUSALS_BEFORE_GIVING_UP} times in a row`
    )
  })
})
