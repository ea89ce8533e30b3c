import { requireRevokeApiKey, shouldRevoke } from '../../../src/core/kinds/revoke-guard.js'

describe('shouldRevoke', () => {
  it('revokes unless the workflow asked to keep a credential main handed out', () => {
    expect(shouldRevoke({ revoke: true }, {})).toBe(true)
    expect(shouldRevoke({ revoke: false }, {})).toBe(false)
    expect(shouldRevoke({ revoke: false }, { rejected: false })).toBe(false)
    // Refused by main, never handed out: it goes whatever revoke says.
    expect(shouldRevoke({ revoke: false }, { rejected: true })).toBe(true)
  })
})

describe('requireRevokeApiKey', () => {
  it('says why no revoke request can be sent without an API key', () => {
    expect(() => requireRevokeApiKey({ apiKey: '' })).toThrow(
      'input api-key is empty in the post step, so the revoke request cannot be authenticated.'
    )
    expect(() => requireRevokeApiKey({ apiKey: 'sk_x' })).not.toThrow()
  })
})
