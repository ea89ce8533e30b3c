import { loadTunnel } from '../../src/state.js'

const good = { pid: 123, logPath: '/t/log', statsPath: '/t/stats', stopPath: '/t/stop' }

afterEach(() => {
  delete process.env.STATE_tunnel
})

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
    ['a missing path', JSON.stringify({ ...good, stopPath: undefined })]
  ])('gives nothing for %s, so post touches no process', (_label, raw) => {
    if (raw !== undefined) process.env.STATE_tunnel = raw
    expect(loadTunnel()).toBeUndefined()
  })
})
