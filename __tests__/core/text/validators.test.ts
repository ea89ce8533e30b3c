import {
  identifierProblem,
  isBareHost,
  isCleanIdentifier,
  isPort
} from '../../../src/core/text/validators.js'

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

describe('the length of a host name', () => {
  // Labels of 63 characters, the most a label may have, to make a name of any length.
  const name = (length: number) => `${'a'.repeat(63)}.`.repeat(5).slice(0, length - 1) + 'b'
  it('accepts 253 characters, and a trailing dot after them', () => {
    expect(isBareHost(name(253))).toBe(true)
    expect(isBareHost(`${name(253)}.`)).toBe(true)
    expect(isBareHost('a')).toBe(true)
  })
  it('refuses 254 characters, and a lone dot', () => {
    expect(isBareHost(name(254))).toBe(false)
    expect(isBareHost('.')).toBe(false)
    expect(isBareHost('a..b')).toBe(false)
  })
  it('accepts a label of 63 characters and inner dashes, and no leading or trailing dash', () => {
    expect(isBareHost(`${'a'.repeat(63)}.test`)).toBe(true)
    expect(isBareHost('a--b.test')).toBe(true)
    expect(isBareHost('a-.test')).toBe(false)
    expect(isBareHost('test.-a')).toBe(false)
  })
})

describe('identifierProblem', () => {
  it.each([
    [undefined, 'is missing'],
    [null, 'is missing'],
    ['', 'is missing'],
    [7, 'is not a string'],
    ['a\tb', 'holds whitespace or control characters'],
    ['a\ud800', 'is not well-formed Unicode'],
    ['ab12c', undefined]
  ])('says %j %s', (value, problem) => expect(identifierProblem(value)).toBe(problem))
})
