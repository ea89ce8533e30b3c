import { createHash } from 'node:crypto'
import { ed25519KeyPair } from '../../../service/__tests__/helpers/ed25519.js'
import { fingerprintOf, keyTypeOf } from '../../../src/core/text/fingerprint.js'

describe('fingerprintOf', () => {
  it('is SHA256: and the unpadded base64 of the SHA-256 of the blob', () => {
    // sha256("") is e3b0c442…b855; its base64 ends in "=" which must be dropped.
    expect(fingerprintOf(Buffer.alloc(0))).toBe(
      'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU'
    )
  })

  it('computes fingerprints the way OpenSSH prints them', () => {
    const blob = Buffer.from(ed25519KeyPair().public.trim().split(/\s+/)[1], 'base64')
    const expected = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`
    expect(fingerprintOf(blob)).toBe(expected)
    expect(expected).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/)
  })
})

describe('keyTypeOf', () => {
  it('reads the length-prefixed type a key blob starts with', () => {
    const blob = Buffer.from(ed25519KeyPair().public.trim().split(/\s+/)[1], 'base64')
    expect(keyTypeOf(blob)).toBe('ssh-ed25519')
  })

  it('is undefined for a blob too short for its own length', () => {
    expect(keyTypeOf(Buffer.alloc(3))).toBeUndefined()
    expect(keyTypeOf(Buffer.from([0, 0, 0, 0]))).toBeUndefined()
    expect(keyTypeOf(Buffer.from([0, 0, 0, 9, 0x73]))).toBeUndefined()
  })
})
