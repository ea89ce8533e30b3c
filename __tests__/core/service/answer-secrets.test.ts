import { holdsSecret, secretsIn } from '../../../src/core/service/answer-secrets.js'

describe('holdsSecret', () => {
  const token = 'tok_3f9a8b7c6d5e4f3a2b1c'
  it.each([
    token,
    `u-${token}-1`,
    't=ok_3f9a8b7c6d5e4f3a2b1c',
    'tok_3f9a8b7c6d~5e4f3a2b1c',
    `${'x'.repeat(50)}${token.slice(6, 18)}`
  ])('finds the token, or half of it in one piece, in %s', value => {
    expect(holdsSecret(value, [token])).toBe(true)
  })
  it.each(['ab12c', '3f9a8b7c', 'tok_3f9a8b7', `${'3f9a8b7c6d5'}-x`])(
    'leaves %s, which shares less than half of it',
    value => expect(holdsSecret(value, [token])).toBe(false)
  )
  it('counts a secret shorter than 8 characters only whole', () => {
    expect(holdsSecret('user-s3c', ['s3c'])).toBe(true)
    expect(holdsSecret('user-s3', ['s3c'])).toBe(false)
  })
  it('tells apart two pieces of the token whose hashes are the same', () => {
    // "htauu410" and "2x6fwj4a" have the same rolling hash: the piece is found by its text.
    const secret = 'htauu4102x6fwj4a'
    expect(holdsSecret('user-htauu410', [secret])).toBe(true)
    expect(holdsSecret('user-2x6fwj4a', [secret])).toBe(true)
    expect(holdsSecret('user-htauu41x', [secret])).toBe(false)
  })
  it('finds a half of the token that sits in the middle of both the value and the token', () => {
    // The rolling hash gives the same window the same hash wherever it starts.
    const token = 'tok_0123456789abcdefghijklmnopqr'
    const half = token.slice(9, 25)
    expect(holdsSecret(`user-${half}-x`, [token])).toBe(true)
    expect(holdsSecret(`user-${half.slice(1)}-x`, [token])).toBe(false)
  })
  it('compares huge strings in linear time', () => {
    const huge = 'ab'.repeat(500_000)
    expect(holdsSecret(huge, [`${'c'.repeat(500_000)}`])).toBe(false)
    expect(holdsSecret(huge, [`c${'ab'.repeat(300_000)}`])).toBe(true)
  })
})

describe('secretsIn', () => {
  it('finds the token and a free secret, and nothing in other shapes', () => {
    expect(secretsIn({ token: 'a', tunnel_client_secret: 'b', tunnel_user: 'u' })).toEqual([
      'a',
      'b'
    ])
    expect(secretsIn({ token: 7, tunnel_client_secret: '' })).toEqual([])
    expect(secretsIn([{ token: 'a' }])).toEqual([])
    expect(secretsIn('tok')).toEqual([])
  })
})
