/**
 * The gate's reading of a request head and the timeline's bounds, without sockets: the edges a
 * client could use to slip past the gate, and a record that stays small however often the
 * connection drops.
 */
import { makeGate } from '../../../../../src/core/tunnel/keeper/http/gate.js'
import type { RequestHead } from '../../../../../src/core/tunnel/keeper/http/hooks.js'
import { DOWN_PERIODS_KEPT, Timeline } from '../../../../../src/core/tunnel/keeper/timeline.js'

const SECRET = 'Zm9vYmFyLXNlY3JldC12YWx1ZS0xMjM0NTY3ODkwYWJj'
const head = (target: string, headers: [string, string][] = []): RequestHead => ({
  entry: 'web',
  method: 'GET',
  target,
  httpVersion: 'HTTP/1.1',
  headers: [['Host', 'web.example'], ...headers]
})
const refused = (decision: unknown) =>
  typeof decision === 'object' && decision !== null && 'answer' in decision

describe('the gate', () => {
  const gate = makeGate(SECRET)

  it.each([
    [`/_tunnel-gate/${SECRET}?x=1`, '/?x=1'],
    [`/_tunnel-gate/${SECRET}/`, '/'],
    [`/_tunnel-gate/${SECRET}/a/b?c=d`, '/a/b?c=d']
  ])('strips the path prefix of %s to %s', (target, seen) => {
    expect(gate(head(target))).toEqual({ forward: { target: seen } })
  })

  it.each([
    `/_tunnel-gate/${SECRET}x/a`,
    `/_tunnel-gate/${SECRET.slice(1)}`,
    `/a/_tunnel-gate/${SECRET}`,
    `/_tunnel-gate//${SECRET}`,
    `/_TUNNEL-GATE/${SECRET}`,
    `/?gate=${SECRET}`,
    '/_tunnel-gate/'
  ])('refuses %s', target => {
    expect(refused(gate(head(target)))).toBe(true)
  })

  it('refuses everything when the gate is on without a secret', () => {
    const empty = makeGate(undefined)
    expect(refused(empty(head('/_tunnel-gate//x')))).toBe(true)
    expect(refused(empty(head('/', [['X-Tunnel-Gate', '']])))).toBe(true)
    expect(refused(empty(head('/', [['Authorization', 'Basic dHVubmVsOg==']])))).toBe(true)
  })

  it('takes off every form that holds the secret, and only those', () => {
    const both = gate(
      head(`/_tunnel-gate/${SECRET}/x`, [
        ['x-tunnel-gate', SECRET],
        ['Authorization', `Basic ${Buffer.from(`u:${SECRET}`).toString('base64')}`]
      ])
    )
    expect(both).toEqual({
      forward: { target: '/x', removeHeaders: ['X-Tunnel-Gate', 'Authorization'] }
    })
    const appsOwn = gate(
      head('/x', [
        ['X-Tunnel-Gate', SECRET],
        ['Authorization', 'Basic YTpi']
      ])
    )
    expect(appsOwn).toEqual({ forward: { removeHeaders: ['X-Tunnel-Gate'] } })
  })
})

describe('the timeline', () => {
  it(`keeps the latest ${DOWN_PERIODS_KEPT} down periods and counts the earlier ones`, () => {
    let now = 0
    const timeline = new Timeline(
      [{ name: 'web' }],
      () => now,
      () => undefined
    )
    for (let drop = 0; drop < DOWN_PERIODS_KEPT + 7; drop++) {
      now += 1_000
      timeline.connectionLost(`drop ${drop}`)
      now += 500
      timeline.reconnected()
    }
    const snapshot = timeline.snapshot()
    expect(snapshot.down).toHaveLength(DOWN_PERIODS_KEPT)
    expect(snapshot.down[0].reason).toBe('drop 7')
    expect(snapshot.downOmitted).toBe(7)
    expect(JSON.stringify(snapshot).length).toBeLessThan(10_000)
  })

  it('adds up outages and keeps the longest', () => {
    let now = 0
    const timeline = new Timeline(
      [{ name: 'web' }],
      () => now,
      () => undefined
    )
    timeline.appUnreachable('web')
    now += 2_000
    timeline.appUnreachable('web')
    now += 1_000
    expect(timeline.appReached('web')).toBe(true)
    timeline.appUnreachable('web')
    now += 500
    expect(timeline.appReached('web')).toBe(false)
    expect(timeline.snapshot().apps.web).toEqual({
      unreachableMs: 3_500,
      longestMs: 3_000,
      firstForwardAt: new Date(3_000).toISOString()
    })
  })
})
