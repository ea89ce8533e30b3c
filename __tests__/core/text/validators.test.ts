import { isBareHost, isCleanIdentifier, isPort } from '../../../src/core/text/validators.js'

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
