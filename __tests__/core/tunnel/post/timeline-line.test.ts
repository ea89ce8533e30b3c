/** The tunnel's timeline in one line, as post's summary and the CLI's revoke show it. */
import type { TunnelTimeline } from '../../../../src/core/tunnel/protocol.js'
import { readTimeline, timelineParts } from '../../../../src/core/tunnel/post/timeline-line.js'
import { commandsObeyedIn } from '../../../helpers/log-readers.js'

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 23, 10, 0, seconds)).toISOString()
const END = Date.UTC(2026, 10, 23, 10, 10, 0)
/** The parts as post's line joins them, after `Tunnel: up N s, `. */
const line = (timeline: TunnelTimeline, endMs = END) => timelineParts(timeline, endMs).join('; ')

it('says the tunnel was never down when it never went down', () => {
  expect(line({ down: [], apps: { web: { unreachableMs: 0, longestMs: 0 } } })).toBe('never down')
})

it("names an app's time unreachable in all and its longest outage", () => {
  expect(
    line({
      down: [],
      apps: { web: { unreachableMs: 3_000, longestMs: 2_000, firstForwardAt: at(1) } }
    })
  ).toBe('never down; app web unreachable 3 s in all (longest 2 s)')
})

it('names one outage once, without an "in all"', () => {
  expect(line({ down: [{ from: at(10), to: at(22), reason: 'connection lost' }], apps: {} })).toBe(
    'down once, 12 s (connection lost)'
  )
})

it('adds up the times down, and names the longest with its reason', () => {
  const timeline: TunnelTimeline = {
    down: [
      { from: at(10), to: at(12), reason: 'server restarted' },
      { from: at(30), to: at(42), reason: 'connection lost' }
    ],
    apps: {}
  }
  expect(line(timeline)).toBe('down twice, 14 s in all (longest 12 s: connection lost)')
  timeline.down.push({ from: at(50), to: at(51), reason: 'keepalive timeout' })
  expect(line(timeline)).toBe('down 3 times, 15 s in all (longest 12 s: connection lost)')
})

it('counts the periods the keeper no longer lists, and says the times are of the latest', () => {
  const down = [
    { from: at(10), to: at(12), reason: 'server restarted' },
    { from: at(30), to: at(42), reason: 'connection lost' }
  ]
  expect(line({ down, downOmitted: 48, apps: {} })).toBe(
    'down 50 times, 14 s in the latest 2 (longest 12 s: connection lost)'
  )
})

it('counts a period still open until the tunnel ended', () => {
  expect(line({ down: [{ from: at(0), reason: 'connection lost' }], apps: {} })).toBe(
    'down once, 10 min 0 s (connection lost)'
  )
})

it('shows an outage shorter than a second, and an app never reached', () => {
  expect(line({ down: [], apps: { api: { unreachableMs: 400, longestMs: 400 } } })).toBe(
    'never down; app api unreachable 0.4 s, never reached'
  )
})

it('names the apps unreachable longest first, and counts those past five', () => {
  const apps = Object.fromEntries(
    [1, 2, 3, 4, 5, 6, 7].map(n => [
      `app${n}`,
      { unreachableMs: n * 1000, longestMs: n * 1000, firstForwardAt: at(0) }
    ])
  )
  const said = line({ down: [], apps })
  expect(said).toMatch(/^never down; app app7 unreachable 7 s; app app6 /)
  expect(said).not.toContain('app2')
  expect(said).toMatch(/; 2 more apps unreachable$/)
})

it('makes what the stats file says printable: no reader obeys an entry name or a reason', () => {
  const said = line({
    down: [{ from: at(0), to: at(1), reason: '::add-mask::x\n##[error]y' }],
    apps: { '##vso[task.setvariable variable=A]b': { unreachableMs: 1_000, longestMs: 1_000 } }
  })
  expect(said.split('\n')).toHaveLength(1)
  expect(commandsObeyedIn([said])).toEqual([])
})

describe('readTimeline: a stats file anyone in the job could write', () => {
  it('reads a well-formed timeline as it is', () => {
    const timeline = {
      down: [{ from: at(1), to: at(2), reason: 'connection lost' }],
      apps: { web: { unreachableMs: 5, longestMs: 5, firstForwardAt: at(3) } }
    }
    expect(readTimeline(JSON.parse(JSON.stringify(timeline)))).toEqual(timeline)
  })

  it.each([undefined, null, 'down', [], { down: 'x', apps: {} }, { down: [], apps: [] }])(
    'reads %j as no timeline',
    value => expect(readTimeline(value)).toBeUndefined()
  )

  it('leaves out malformed periods and apps, and never takes `__proto__` for a prototype', () => {
    const read = readTimeline(
      JSON.parse(
        '{"down":[{"from":1,"reason":"x"},{"from":"2026-11-23T10:00:00Z","reason":"ok"}],' +
          '"apps":{"a":{"unreachableMs":-1,"longestMs":0},"__proto__":{"unreachableMs":1000,"longestMs":1000}}}'
      )
    )!
    expect(read.down).toEqual([{ from: '2026-11-23T10:00:00Z', reason: 'ok' }])
    expect(Object.keys(read.apps)).toEqual(['__proto__'])
    expect(Object.getPrototypeOf(read.apps)).toBe(Object.prototype)
    expect(timelineParts(read, Date.parse('2026-11-23T10:00:03Z')).join('; ')).toBe(
      'down once, 3 s (ok); app __proto__ unreachable 1 s, never reached'
    )
  })

  it('does not count a period whose times no date reads', () => {
    expect(line({ down: [{ from: 'soon', to: at(1), reason: 'x' }], apps: {} })).toBe('never down')
  })
})
