/**
 * Which forms of the run's secrets the request log finds: a form it misses is written to a log
 * that may be public; a pattern that finds too much would eat the rest of the record.
 */
import { secretPatterns } from '../../../../src/core/tunnel/request-log/secret-pattern.js'

/** `text` with every whole secret found replaced by `#`. */
function scrubbed(secrets: string[], text: string): string {
  const patterns = secretPatterns(secrets)
  if (patterns === undefined) throw new Error('no patterns')
  return text.replace(patterns.whole, '#')
}

/** Whether `text` ends in a start of a secret, as a body cut in its middle does. */
function endsInCutSecret(secrets: string[], text: string): boolean {
  const patterns = secretPatterns(secrets)
  if (patterns === undefined) throw new Error('no patterns')
  return patterns.cutAtEnd.test(text)
}

const percentEncoded = (text: string, upper: boolean): string =>
  [...Buffer.from(text, 'utf8')]
    .map(byte => `%${byte.toString(16).padStart(2, '0')}`)
    .map(escape => (upper ? escape.toUpperCase() : escape))
    .join('')

describe('secretPatterns', () => {
  it('gives nothing to look for without a non-empty secret', () => {
    expect(secretPatterns([])).toBeUndefined()
    expect(secretPatterns(['', ''])).toBeUndefined()
  })

  it('ignores an empty secret beside real ones, rather than matching everywhere', () => {
    expect(scrubbed(['', 'tok3n'], 'a tok3n b')).toBe('a # b')
  })

  it('finds a secret as it is, every time it appears, and nothing else', () => {
    expect(scrubbed(['s3cr3t-Value'], 's3cr3t-Value/x?s3cr3t-Value s3cr3t-valu')).toBe(
      '#/x?# s3cr3t-valu'
    )
  })

  it('finds a longer secret whole even when a shorter one is its start', () => {
    expect(scrubbed(['abcd', 'abcdefgh'], 'abcdefgh abcd')).toBe('# #')
    expect(scrubbed(['abcdefgh', 'abcd'], 'abcdefgh abcd')).toBe('# #')
  })

  it('takes the characters of a regular expression literally', () => {
    const secret = 'a.b*c+d?e(f)g[h]i{j}k|l^m$n\\o/p-q'
    expect(scrubbed([secret], `<${secret}>`)).toBe('<#>')
    expect(scrubbed([secret], 'aXb*c+d?e(f)g[h]i{j}k|l^m$n\\o/p-q')).not.toContain('#')
  })

  it('finds it percent-encoded, character by character, in either case of hex', () => {
    const secret = 'Ab/+=z'
    expect(scrubbed([secret], `x=${percentEncoded(secret, false)}&`)).toBe('x=#&')
    expect(scrubbed([secret], `x=${percentEncoded(secret, true)}&`)).toBe('x=#&')
    expect(scrubbed([secret], 'x=A%62/%2b=%7A&')).toBe('x=#&')
    expect(scrubbed([secret], 'x=A%62/%2B=%7a&')).toBe('x=#&')
  })

  it('finds a UTF-8 secret percent-encoded in part, as a client that encodes only some', () => {
    expect(scrubbed(['pässwörd'], '[pässw%C3%B6rd]')).toBe('[#]')
    expect(scrubbed(['pässwörd'], '[p%c3%a4sswörd]')).toBe('[#]')
  })

  it('reads \\/ as a slash only, and an escape as the one character it stands for', () => {
    expect(scrubbed(['abcdef'], 'ab\\/def abc\\/ef')).toBe('ab\\/def abc\\/ef')
    // Beyond U+FFFF there is no four-digit escape: five hex digits are not this character.
    expect(scrubbed(['ab\u{1F600}cd'], 'ab\\u1f600cd')).toBe('ab\\u1f600cd')
  })

  it('finds it JSON-escaped, with \\/ for a slash and \\u escapes in either case', () => {
    expect(scrubbed(['ab/cd'], '{"t":"ab\\/cd"}')).toBe('{"t":"#"}')
    expect(scrubbed(['ab/cd'], '{"t":"\\u0061b\\u002Fcd"}')).toBe('{"t":"#"}')
    expect(scrubbed(['abcd'], '"\\u0061\\u0062\\u0063\\u0064"')).toBe('"#"')
    expect(scrubbed(['zzzz'], '"\\u007A\\u007a\\u007Azz"')).toBe('"#z"')
    expect(scrubbed(['\uffff\uffffab'], '\\uffff\\uFFFFab')).toBe('#')
  })

  it('finds a UTF-8 secret as text and as its bytes read one per character', () => {
    const secret = 'pässwörd'
    expect(scrubbed([secret], `[${secret}]`)).toBe('[#]')
    expect(scrubbed([secret], `[${Buffer.from(secret, 'utf8').toString('latin1')}]`)).toBe('[#]')
    expect(scrubbed([secret], `[${percentEncoded(secret, true)}]`)).toBe('[#]')
    expect(scrubbed([secret], '[p\\u00e4ssw\\u00F6rd]')).toBe('[#]')
  })

  it('finds it base64-encoded as a whole: padded, unpadded, and in the URL alphabet', () => {
    const secret = 'k?>k?>k'
    const standard = Buffer.from(secret).toString('base64')
    const url = Buffer.from(secret).toString('base64url')
    expect(standard).toMatch(/[+/]/)
    expect(standard).toMatch(/=$/)
    expect(scrubbed([secret], `a ${standard} b`)).toBe('a # b')
    expect(scrubbed([secret], `a ${standard.replace(/=+$/, '')} b`)).toBe('a # b')
    expect(scrubbed([secret], `a ${url} b`)).toBe('a # b')
  })

  it('finds a base64 form of four characters, and none shorter', () => {
    // 'ab' is 'YWI=' (4 characters padded, 3 without); 'a' is 'YQ==' (4 padded, 2 without).
    expect(scrubbed(['ab'], 'YWI= YWI YW')).toBe('# YWI YW')
    expect(scrubbed(['a'], 'YQ== YQ a')).toBe('# YQ #')
  })

  it('finds a start of a secret that ends a cut text, from four characters up', () => {
    const secret = 'abcdefgh'
    expect(endsInCutSecret([secret], 'body: abcd')).toBe(true)
    expect(endsInCutSecret([secret], 'body: abcdefg')).toBe(true)
    expect(endsInCutSecret([secret], 'body: ab%63d')).toBe(true)
    expect(endsInCutSecret([secret], 'body: abc')).toBe(false)
    expect(endsInCutSecret([secret], 'body: abcdx')).toBe(false)
    expect(endsInCutSecret([secret], 'abcdefg then more')).toBe(false)
    expect(endsInCutSecret([secret], 'body: abcdfg')).toBe(false)
  })

  it('finds a cut start of any of several secrets, the shorter ones too', () => {
    const secrets = ['longer_secret_0123', 'short_9876']
    expect(endsInCutSecret(secrets, 'body: short_98')).toBe(true)
    expect(endsInCutSecret(secrets, 'body: longer_se')).toBe(true)
    expect(endsInCutSecret(secrets, 'body: shor')).toBe(true)
    expect(endsInCutSecret(secrets, 'body: sho')).toBe(false)
  })

  it('finds no cut start of a secret of four characters or fewer: it is whole or not there', () => {
    expect(endsInCutSecret(['abcd'], 'x abcd')).toBe(false)
    expect(endsInCutSecret(['abcd'], 'x abc')).toBe(false)
    expect(endsInCutSecret(['abcde'], 'x abcd')).toBe(true)
  })
})
