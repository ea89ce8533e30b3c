import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadTunnel } from '../../src/state.js'

const runnerTemp = mkdtempSync(join(tmpdir(), 'saved-state-'))
const good = { pid: 123, dir: join(runnerTemp, 'tunnel-aB3dE9') }

beforeEach(() => {
  process.env.RUNNER_TEMP = runnerTemp
})
afterEach(() => {
  delete process.env.STATE_tunnel
  delete process.env.RUNNER_TEMP
})
afterAll(() => rmSync(runnerTemp, { recursive: true, force: true }))

describe('loadTunnel', () => {
  it('reads what main saved', () => {
    process.env.STATE_tunnel = JSON.stringify({ ...good, extra: 'ignored' })
    expect(loadTunnel()).toEqual(good)
  })

  it.each([
    ['nothing saved', undefined],
    ['not JSON', '{'],
    ['a pid that is not a positive whole number', JSON.stringify({ ...good, pid: -1 })],
    ['a pid that is a string', JSON.stringify({ ...good, pid: '123' })],
    ['no directory', JSON.stringify({ pid: 123 })],
    ['a directory outside RUNNER_TEMP', JSON.stringify({ ...good, dir: '/etc/tunnel-aB3dE9' })],
    [
      'a directory deeper in RUNNER_TEMP',
      JSON.stringify({ ...good, dir: join(good.dir, 'tunnel-aB3dE9') })
    ],
    ['a directory of another name', JSON.stringify({ ...good, dir: join(runnerTemp, 'work') })],
    [
      'a path that climbs out',
      JSON.stringify({ ...good, dir: join(runnerTemp, '..', 'tunnel-aB3dE9') })
    ]
  ])('gives nothing for %s, so post touches no file and no process', (_label, raw) => {
    if (raw !== undefined) process.env.STATE_tunnel = raw
    expect(loadTunnel()).toBeUndefined()
  })
})
