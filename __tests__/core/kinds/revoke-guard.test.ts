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
  const optionLabel = (name: string) => `--${name}`
  it('says why no revoke request can be sent without an API key, naming the option', () => {
    expect(() => requireRevokeApiKey({ apiKey: '', optionLabel })).toThrow(
      '--api-key is empty when revoking, so the revoke request cannot be authenticated.'
    )
    expect(() => requireRevokeApiKey({ apiKey: 'sk_x', optionLabel })).not.toThrow()
  })
})
