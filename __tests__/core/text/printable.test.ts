import fc from 'fast-check'
import {
  cleanText,
  hasControlCharacter,
  hasLineBreak,
  hasUnsafeCharacter,
  printable,
  redactCredentials
} from '../../../src/core/text/printable.js'
import { commandsObeyedIn } from '../../helpers/log-readers.js'

describe('printable', () => {
  it.each([
    ['a\nb', 'a\\u000ab'],
    ['a\r\nb', 'a\\u000d\\u000ab'],
    ['a\u0085b\u2028c\u2029d', 'a\\u0085b\\u2028c\\u2029d'],
    ['\u001b[31mred', '\\u001b[31mred'],
    ['lone \ud800 half', 'lone \\ud800 half'],
    ['a pair \ud83d\ude00 stays', 'a pair \ud83d\ude00 stays'],
    ['##[add-mask]x', '\\u0023#[add-mask]x'],
    ['a ###[STOP-COMMANDS]p ##[', 'a #\\u0023#[STOP-COMMANDS]p \\u0023#['],
    ['# #[ ## [ #[ stay', '# #[ ## [ #[ stay'],
    ['x ##vso[task.setsecret]y', 'x \\u0023#vso[task.setsecret]y'],
    ['  ::add-mask::x', '  \\u003a:add-mask::x'],
    ['--- group', '\\u002d-- group'],
    ['a::b and a --- b stay', 'a::b and a --- b stay']
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

it('hides credentials and the ##[ command form in service prose', () => {
  expect(cleanText('invalid token tok_3f9a8b7c6d5e4f3a2b1c', 40)).toBe('invalid token ***')
  expect(cleanText('##[stop-commands]p', 40)).toBe('\\u0023#[stop-commands]p')
})

it('hides credential-shaped runs and leaves ordinary words', () => {
  expect(
    redactCredentials(
      `token tok_AbC-123 key sk_${'0f'.repeat(32)} hash ${'deadbeef'.repeat(3)} b64 ${'QUJD'.repeat(7)}== ok`
    )
  ).toBe('token *** key *** hash *** b64 *** ok')
  // Eight hex characters are enough: the tail of a token cut by a line break is no shorter.
  expect(redactCredentials('tail b7c6d5e4 and 7c6d5e4')).toBe('tail *** and 7c6d5e4')
  expect(redactCredentials('Internal server error: project not found')).toBe(
    'Internal server error: project not found'
  )
})

describe('the printable-ASCII shortcut', () => {
  // Strings from every corner: printable ASCII, ASCII controls, and any UTF-16 code unit, so that
  // both the shortcut and the Unicode classes are taken.
  const text = fc.oneof(
    fc.string({ unit: fc.constantFrom(...' az~#[:\t\n\r\u0000\u007f') }),
    fc.string({ unit: 'binary' }),
    fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map(c => String.fromCharCode(c)) })
  )
  const run = <T>(property: fc.IProperty<T>) =>
    fc.assert(property, { seed: 20261124, numRuns: 500 })

  it('finds whitespace, control and format characters as the Unicode classes do', () => {
    run(
      fc.property(text, value => {
        expect(hasUnsafeCharacter(value)).toBe(/[\s\p{Cc}\p{Cf}]/u.test(value))
        expect(hasControlCharacter(value)).toBe(/\p{Cc}/u.test(value))
      })
    )
  })

  it('leaves printable ASCII as it is, apart from the escaped first characters of log markers', () => {
    const unescaped = (shown: string) =>
      shown.replace(/\\u00([0-9a-f]{2})/g, (_, hex: string) =>
        String.fromCharCode(parseInt(hex, 16))
      )
    run(
      fc.property(fc.string({ unit: fc.constantFrom(...' az~#[:-+^') }), value => {
        const shown = printable(value, 1000)
        expect(unescaped(shown)).toBe(value)
        // Only a marker's first character is escaped: a text without # or a line-start sign stays.
        if (!/[#:\-+~^]/.test(value)) expect(shown).toBe(value)
        expect(commandsObeyedIn([shown, `  ${shown}`])).toEqual([])
      })
    )
  })

  it('names the cases the shortcut must not miss', () => {
    expect(hasUnsafeCharacter('tok abc')).toBe(true)
    expect(hasUnsafeCharacter('tok\u00a0abc')).toBe(true) // no-break space
    expect(hasUnsafeCharacter('tok\u200babc')).toBe(true) // zero-width space (format)
    expect(hasUnsafeCharacter('tok_abc~')).toBe(false)
    expect(hasControlCharacter('a\u0085b')).toBe(true) // C1 next line
    expect(hasControlCharacter('plain text')).toBe(false)
    expect(printable('a\u200bb')).toBe('a\\u200bb')
  })
})

describe('the cut', () => {
  it('keeps text of exactly the limit whole, and cuts one character more', () => {
    expect(printable('x'.repeat(200))).toBe('x'.repeat(200))
    expect(printable('x'.repeat(201))).toBe(`${'x'.repeat(197)}...`)
    expect(printable('abcdefg', 7)).toBe('abcdefg')
    expect(printable('abcdefgh', 7)).toBe('abcd...')
  })

  it('counts the escapes, not the characters they stand for', () => {
    expect(printable('a\nb', 8)).toBe('a\\u000ab')
    expect(printable('a\nbc', 8)).toBe('a\\u00...')
    expect(printable('##[x', 9)).toBe('\\u0023#[x')
    expect(printable('##[xy', 9)).toBe('\\u0023...')
  })

  it('cleans prose to its own limit', () => {
    expect(cleanText(`  ${'word '.repeat(10)}`, 20)).toBe('word word word wo...')
    expect(cleanText('ok\u200b\u200bthen', 20)).toBe('ok then')
  })
})
