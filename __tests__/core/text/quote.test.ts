import { quote } from '../../../src/core/text/quote.js'

describe('quote', () => {
  it('puts a value in double quotes, with nothing in it that acts on the runner', () => {
    expect(quote('web=3000')).toBe('"web=3000"')
    expect(quote('a##[warning]b')).toBe('"a\\u0023#[warning]b"')
    expect(quote('a\u2028b\nc')).toBe('"a\\u2028b\\u000ac"')
  })

  it('cuts a long value short, at 60 characters unless told', () => {
    expect(quote('x'.repeat(100))).toBe(`"${'x'.repeat(57)}..."`)
    expect(quote('x'.repeat(100), 120)).toBe(`"${'x'.repeat(100)}"`)
  })
})
