import type { KeeperStats } from '../../../src/core/tunnel/protocol.js'
import {
  formatBytes,
  formatDuration,
  formatStatsLine
} from '../../../src/core/tunnel/stats-line.js'

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
      'Tunnel: up 12 min 3 s, 1 reconnect, 1 connection served, 1.5 KB in / 3.0 MB out, 2 local connection errors.'
    )
    const { readyAt: _readyAt, ...neverReady } = stats
    expect(
      formatStatsLine(
        { ...neverReady, reconnects: 0, connections: 0, localErrors: 1, bytesIn: 0 },
        Date.parse('2026-11-23T10:00:09.000Z')
      )
    ).toBe(
      'Tunnel: up 9 s, 0 reconnects, 0 connections served, 0 B in / 3.0 MB out, 1 local connection error.'
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
