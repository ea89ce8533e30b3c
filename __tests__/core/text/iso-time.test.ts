import { isIsoTime } from '../../../src/core/text/iso-time.js'

describe('isIsoTime', () => {
  it.each(['2026-11-23T10:00:00Z', '2026-11-23T10:00Z', '2026-11-23T10:00:00.123+02:00'])(
    'takes %s',
    value => expect(isIsoTime(value)).toBe(true)
  )

  it.each([
    '2026-11-23',
    '2026-11-23T10:00:00',
    '2026-13-45T10:00:00Z',
    'soon',
    ' 2026-11-23T10:00:00Z',
    1764000000,
    null
  ])('refuses %j', value => expect(isIsoTime(value)).toBe(false))
})
