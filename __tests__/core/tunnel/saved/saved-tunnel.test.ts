import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadTunnel } from '../../../../src/core/tunnel/saved/saved-tunnel.js'

const runnerTemp = mkdtempSync(join(tmpdir(), 'saved-state-'))
const good = {
  pid: 123,
  dir: join(runnerTemp, 'tunnel-aB3dE9'),
  dirId: '2049:131',
  startTime: '8832',
  started: true
}

/** What main saved under `tunnel`, as the host's saved state gives it back. */
let saved = ''
const state = { save: () => {}, load: (name: string) => (name === 'tunnel' ? saved : '') }
const load = () => loadTunnel(state, runnerTemp)

afterEach(() => {
  saved = ''
})
afterAll(() => rmSync(runnerTemp, { recursive: true, force: true }))

describe('loadTunnel', () => {
  it('reads what main saved', () => {
    saved = JSON.stringify({ ...good, extra: 'ignored' })
    expect(load()).toEqual({ saved: good })
  })

  it('reads a tunnel saved before it was ready, and one whose start time could not be read', () => {
    const { startTime: _s, ...unproven } = good
    saved = JSON.stringify({ ...unproven, started: false })
    expect(load()).toEqual({ saved: { ...unproven, started: false } })
  })

  it.each([
    ['a start time that is not a string', { startTime: 8832 }],
    ['a directory id that is not a string', { dirId: ['2049', '131'] }],
    ['started that is not true', { started: 'yes' }]
  ])('drops %s, so post proves nothing with it', (_label, bad) => {
    saved = JSON.stringify({ ...good, ...bad })
    const read = load()?.saved
    expect(read?.pid).toBe(123)
    expect(read).not.toMatchObject(bad)
  })

  it('reads an emptied saved tunnel (main ended its process) as nothing', () => {
    saved = ''
    expect(load()).toBeUndefined()
  })

  it.each([
    ['nothing saved', undefined],
    ['not JSON', '{'],
    ['a pid that is not a positive whole number', JSON.stringify({ ...good, pid: -1 })],
    ['a pid that is a string', JSON.stringify({ ...good, pid: '123' })],
    ['no directory', JSON.stringify({ pid: 123 })],
    ['a directory of another name', JSON.stringify({ ...good, dir: join(runnerTemp, 'work') })],
    ['a relative directory', JSON.stringify({ ...good, dir: 'tunnel-aB3dE9' })],
    ['a directory named like a tunnel at the root', JSON.stringify({ ...good, dir: '/' })]
  ])('gives nothing for %s, so post touches no file and no process', (_label, raw) => {
    if (raw !== undefined) saved = raw
    expect(load()).toBeUndefined()
  })

  it.each([
    ['a directory outside the temp root', '/etc/tunnel-aB3dE9'],
    ['a directory deeper in the temp root', join(good.dir, 'tunnel-aB3dE9')],
    ['a path that climbs out', `${runnerTemp}/../tunnel-aB3dE9`]
  ])(
    'reads %s with its folder refused: post touches no file there, and signals only a proven process',
    (_label, dir) => {
      saved = JSON.stringify({ ...good, dir })
      expect(load()).toEqual({ saved: { ...good, dir }, dirRefused: expect.any(String) })
    }
  )
})
