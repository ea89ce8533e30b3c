import type { KeeperStats } from '../../../../src/core/tunnel/protocol.js'
import {
  formatBytes,
  formatDuration,
  formatStatsLine
} from '../../../../src/core/tunnel/post/stats-line.js'

describe('formatStatsLine', () => {
  it('formats the post line', () => {
    const stats: KeeperStats = {
      pid: 1,
      startedAt: '2026-11-23T10:00:00.000Z',
      readyAt: '2026-11-23T10:00:01.000Z',
      updatedAt: '2026-11-23T10:00:01.000Z',
      state: 'stopped',
      reconnects: 1,
      connections: 1,
      bytesIn: 1536,
      bytesOut: 3 * 1024 * 1024,
      localErrors: 2
    }
    expect(formatStatsLine(stats, Date.parse('2026-11-23T10:12:04.000Z'))).toBe(
      'Tunnel: up 12 min 3 s; 1 connection, 1.5 KB in / 3.0 MB out, 1 reconnect, 2 local connection errors.'
    )
    const { readyAt: _readyAt, ...neverReady } = stats
    expect(
      formatStatsLine(
        { ...neverReady, reconnects: 0, connections: 0, localErrors: 1, bytesIn: 0 },
        Date.parse('2026-11-23T10:00:09.000Z')
      )
    ).toBe(
      'Tunnel: up 9 s; 0 connections, 0 B in / 3.0 MB out, 0 reconnects, 1 local connection error.'
    )
  })

  // Issue 26, item 11: revoke printed `Tunnel: up 11 s, …` and `Tunnel: up the whole job`, and
  // "connections served" beside a count of requests, with no word on how the two differ.
  it('is one line with the timeline in it, and says how connections and requests differ', () => {
    const stats: KeeperStats = {
      pid: 1,
      startedAt: '2026-11-23T10:00:00.000Z',
      readyAt: '2026-11-23T10:00:01.000Z',
      updatedAt: '2026-11-23T10:00:12.000Z',
      state: 'stopped',
      reconnects: 0,
      connections: 3,
      bytesIn: 900,
      bytesOut: 2048,
      localErrors: 0
    }
    const end = Date.parse('2026-11-23T10:00:12.000Z')
    expect(
      formatStatsLine(stats, end, {
        requests: 7,
        timeline: ['never down', 'app web unreachable 3 s']
      })
    ).toBe(
      'Tunnel: up 11 s, never down; 3 connections (7 requests: a connection can carry several), 900 B in / 2.0 KB out, 0 reconnects, 0 local connection errors; app web unreachable 3 s.'
    )
    expect(formatStatsLine({ ...stats, connections: 1 }, end, { requests: 1 })).toBe(
      'Tunnel: up 11 s; 1 connection (1 request: a connection can carry several), 900 B in / 2.0 KB out, 0 reconnects, 0 local connection errors.'
    )
  })

  it('prints no text from a stats file that holds text where counts belong', () => {
    const forged = {
      pid: 1,
      startedAt: '::error::forged',
      updatedAt: '2026-11-23T10:00:01.000Z',
      state: 'stopped',
      reconnects: '::warning::a',
      connections: '##vso[task.setvariable variable=X]1',
      bytesIn: '::error::b',
      bytesOut: 2.5,
      localErrors: -1
    } as unknown as KeeperStats
    expect(formatStatsLine(forged, Date.parse('2026-11-23T10:00:09.000Z'))).toBe(
      'Tunnel: up for an unknown time; 0 connections, 0 B in / 0 B out, 0 reconnects, 0 local connection errors.'
    )
  })

  it('formats durations and sizes', () => {
    expect([0, -5, 59_400, 61_000, 3_600_000 + 120_000].map(formatDuration)).toEqual([
      '0 s',
      '0 s',
      '59 s',
      '1 min 1 s',
      '1 h 2 min'
    ])
    expect([0, 1023, 1024, 1024 * 1024 - 1, 1024 * 1024].map(formatBytes)).toEqual([
      '0 B',
      '1023 B',
      '1.0 KB',
      '1024.0 KB',
      '1.0 MB'
    ])
  })
})
