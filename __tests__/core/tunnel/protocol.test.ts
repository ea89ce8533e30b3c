import { readyWaitMs } from '../../../src/core/tunnel/protocol.js'

describe('readyWaitMs', () => {
  it('waits for every attempt and the pauses between them', () => {
    expect(readyWaitMs(30_000, 1)).toBe(35_000)
    expect(readyWaitMs(30_000, 3)).toBe(3 * 30_000 + 2 * 38_500 + 5_000)
  })
})
