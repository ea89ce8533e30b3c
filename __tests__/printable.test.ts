import { cleanText, hasLineBreak, printable, redactCredentials } from '../src/printable.js'

describe('printable', () => {
  it.each([
    ['a\nb', 'a\\u000ab'],
    ['a\r\nb', 'a\\u000d\\u000ab'],
    ['a\u0085b\u2028c\u2029d', 'a\\u0085b\\u2028c\\u2029d'],
    ['\u001b[31mred', '\\u001b[31mred'],
    ['lone \ud800 half', 'lone \\ud800 half'],
    ['a pair \ud83d\ude00 stays', 'a pair \ud83d\ude00 stays']
  ])('writes %j on one line as %j', (value, expected) => {
    expect(printable(value)).toBe(expected)
  })

  it('cuts long text, never between the halves of a surrogate pair', () => {
    expect(printable('x'.repeat(300))).toBe(`${'x'.repeat(197)}...`)
    expect(printable(`abc\ud83d\ude00def`, 7)).toBe('abc...')
    expect(printable(`ab\ud83d\ude00cdef`, 7)).toBe('ab\ud83d\ude00...')
  })
})

it('finds every kind of line break', () => {
  for (const value of ['a\nb', 'a\rb', 'a\u0085b', 'a\u2028b', 'a\u2029b']) {
    expect(hasLineBreak(value)).toBe(true)
  }
  expect(hasLineBreak('a\tb')).toBe(false)
})

it('flattens service prose to one line', () => {
  expect(cleanText('  bad\n\u2028 request\u0000 ', 100)).toBe('bad request')
})

it('hides credential-shaped runs and leaves ordinary words', () => {
  expect(
    redactCredentials(
      `token tok_AbC-123 key sk_${'0f'.repeat(32)} hash ${'deadbeef'.repeat(3)} b64 ${'QUJD'.repeat(7)}== ok`
    )
  ).toBe('token *** key *** hash *** b64 *** ok')
  expect(redactCredentials('Internal server error: project not found')).toBe(
    'Internal server error: project not found'
  )
})
