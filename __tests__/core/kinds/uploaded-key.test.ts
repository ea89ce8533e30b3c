import {
  parseUploadedKey,
  readKeyId,
  sameFingerprint
} from '../../../src/core/kinds/uploaded-key.js'

const ANSWER = {
  key_id: '6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b',
  public_key_fingerprint: 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU',
  server_type: 'default',
  name: 'ci-o-r-1-1',
  expires_at: '2026-11-24T10:00:00Z'
}

describe('parseUploadedKey', () => {
  it('reads the documented answer', () => {
    expect(parseUploadedKey(ANSWER)).toEqual({
      keyId: ANSWER.key_id,
      fingerprint: ANSWER.public_key_fingerprint,
      expiresAt: '2026-11-24T10:00:00Z'
    })
  })

  it('reads a null expires_at as no expiry', () => {
    expect(parseUploadedKey({ ...ANSWER, expires_at: null })).not.toHaveProperty('expiresAt')
  })

  it.each([
    ['not an object', 'ok', 'key_id is missing'],
    ['no key id', { ...ANSWER, key_id: undefined }, 'key_id is missing'],
    ['a key id with a line break', { ...ANSWER, key_id: 'a\nb' }, 'key_id is missing'],
    [
      'an MD5 fingerprint',
      { ...ANSWER, public_key_fingerprint: 'MD5:aa:bb' },
      'public_key_fingerprint'
    ],
    [
      'a fingerprint with a line break',
      { ...ANSWER, public_key_fingerprint: 'SHA256:ab\nc' },
      'public_key_fingerprint'
    ],
    [
      'an expiry that is not a time',
      { ...ANSWER, expires_at: 'tomorrow' },
      'expires_at is not an ISO 8601 time'
    ]
  ])('refuses %s, naming the field', (_name, raw, field) => {
    expect(() => parseUploadedKey(raw)).toThrow(
      new RegExp(
        `^The credential service sent a key upload answer that failed validation: ${field}.*Nothing was exported\\.`
      )
    )
  })
})

describe('readKeyId', () => {
  it('reads the id even when the rest of the answer is unusable', () => {
    expect(readKeyId({ key_id: 'k-1', public_key_fingerprint: 42 })).toBe('k-1')
    expect(readKeyId({ key_id: 7 })).toBeUndefined()
    expect(readKeyId(null)).toBeUndefined()
  })
})

describe('sameFingerprint', () => {
  it('matches exactly, and ignores base64 padding only', () => {
    expect(sameFingerprint('SHA256:abc', 'SHA256:abc')).toBe(true)
    expect(sameFingerprint('SHA256:abc=', 'SHA256:abc')).toBe(true)
    expect(sameFingerprint('SHA256:abd', 'SHA256:abc')).toBe(false)
    expect(sameFingerprint('sha256:abc', 'SHA256:abc')).toBe(false)
  })
})
