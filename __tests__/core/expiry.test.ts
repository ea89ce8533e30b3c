import { expiryNote, hasExpired } from '../../src/core/expiry.js'

describe('hasExpired', () => {
  const now = Date.parse('2026-11-23T10:00:00Z')
  it('compares the expiry with the clock; an unknown or unreadable expiry counts as live', () => {
    expect(hasExpired('2026-11-23T09:59:59Z', now)).toBe(true)
    expect(hasExpired('2026-11-23T10:00:00Z', now)).toBe(true)
    expect(hasExpired('2026-11-23T10:00:01Z', now)).toBe(false)
    expect(hasExpired(undefined, now)).toBe(false)
    expect(hasExpired('soon', now)).toBe(false)
  })
})

describe('expiryNote', () => {
  it('says when the credential expires by itself, escaped, or nothing when unknown', () => {
    expect(expiryNote({ expiresAt: '2026-11-23T10:00:00Z' })).toBe(
      ' It expires by itself at 2026-11-23T10:00:00Z.'
    )
    expect(expiryNote({ expiresAt: '##[x]' })).toBe(' It expires by itself at \\u0023#[x].')
    expect(expiryNote({})).toBe('')
  })
})
