import {
  holdsSecret,
  isBareHost,
  isCleanIdentifier,
  isPort
} from '../../../src/core/text/validators.js'

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
  it('compares huge strings in linear time', () => {
    const huge = 'ab'.repeat(500_000)
    expect(holdsSecret(huge, [`${'c'.repeat(500_000)}`])).toBe(false)
    expect(holdsSecret(huge, [`c${'ab'.repeat(300_000)}`])).toBe(true)
  })
})

describe('isBareHost', () => {
  it.each([
    'tunnel.example.test',
    'localhost',
    'a-b.c',
    '192.0.2.1',
    '2001:db8::1',
    'tunnel.example.test.'
  ])('accepts %s', host => expect(isBareHost(host)).toBe(true))
  it.each([
    '',
    'ssh://h',
    'h:22',
    'h/x',
    'h x',
    '-h.test',
    'h_.test',
    'a'.repeat(64) + '.test',
    '[::1]'
  ])('refuses %j', host => expect(isBareHost(host)).toBe(false))
})

describe('isPort', () => {
  it.each([1, 22, 2223, 65535])('accepts %d', port => expect(isPort(port)).toBe(true))
  it.each([0, -1, 65536, 22.5, NaN])('refuses %d', port => expect(isPort(port)).toBe(false))
})

describe('isCleanIdentifier', () => {
  it.each(['ab12c', 'client-1', 'ab\ud83d\ude00'])('accepts %j', value =>
    expect(isCleanIdentifier(value)).toBe(true)
  )
  it.each(['', undefined, null, 7, 'a b', 'a\nb', 'ab\ud83d'])('refuses %j', value =>
    expect(isCleanIdentifier(value)).toBe(false)
  )
})
