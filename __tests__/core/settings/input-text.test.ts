import { readMainSettings } from '../../../src/core/assembly/read-main.js'
import { optionsFrom as reader } from '../../helpers/options.js'

describe('readMainSettings, the raw text of every input', () => {
  const free = { credential: 'free', 'base-url': 'https://s.test' }
  const read = (values: Record<string, string>) => () => readMainSettings(reader(values))

  // new URL() drops tabs and line breaks, so the template used to pass its check and be printed.
  it.each([
    [
      'url-template',
      'https://{name}-{user}.{host}\n::error::pwned',
      'a line break (U+000A) at character 29'
    ],
    [
      'url-template',
      'https://{name}-{user}.{host}\t::add-mask::x',
      'a control character (U+0009) at character 29'
    ],
    [
      'url-template',
      'https://{name}.{host}/\u202eevil',
      'a bidirectional text control (U+202E) at character 23'
    ],
    ['base-url', 'https://s.test/\n::stop-commands::x', 'a line break (U+000A) at character 16'],
    ['tunnel-host', 'tunnel.example\r\n', 'a line break (U+000D) at character 15'],
    ['env-prefix', 'SVC\u0000', 'a control character (U+0000) at character 4'],
    ['revoke', 'true\u2029', 'a line break (U+2029) at character 5']
  ])('refuses %s %j, saying what and where', (name, value, what) => {
    expect(read({ ...free, expose: '3000', [name]: value })).toThrow(
      new RegExp(
        `^Input ${name} is ".*": it holds ${what.replace(/[()+]/g, '\\$&')}\\. Set it to a single line of plain text\\.$`
      )
    )
  })

  it('checks each line of expose and tunnel-host-key the same way, naming the line', () => {
    expect(read({ ...free, expose: 'web=3000\napi=\u00073001' })).toThrow(
      'Input expose, line 2, is "api=\\u00073001": it holds a control character (U+0007) at character 5. Write each entry as plain text on a line of its own.'
    )
    expect(read({ ...free, expose: '3000', 'tunnel-host-key': 'SHA256:x\u2028y' })).toThrow(
      /^Input tunnel-host-key, line 1, is .*: it holds a line break \(U\+2028\)/
    )
  })

  it('accepts CRLF line ends and tabs inside the lines of a list', () => {
    const line = `[t.example]:2223\tssh-ed25519\t${'A'.repeat(4)}`
    expect(() =>
      readMainSettings(reader({ ...free, expose: 'web=3000\r\napi=3001\r\n' }))
    ).not.toThrow()
    // The line reaches the known_hosts parser, which refuses its key, not its tabs.
    expect(read({ ...free, expose: '3000', 'tunnel-host-key': line })).toThrow(
      'the key after ssh-ed25519 is not a valid ssh-ed25519 key in base64'
    )
  })

  it('names a secret input with a line break but never shows any of it', () => {
    const secret = `sk_${'ab'.repeat(32)}`
    for (const [name, values] of [
      ['api-key', { 'api-key': `${secret}\nX=1`, project: 'p', 'base-url': 'https://s.test' }],
      [
        'tunnel-token',
        {
          credential: 'existing',
          'tunnel-token': `${secret}\u0085`,
          'tunnel-user': 'u',
          'tunnel-host': 't.example'
        }
      ]
    ] as const) {
      let message = ''
      try {
        readMainSettings(reader(values))
      } catch (error) {
        message = (error as Error).message
      }
      expect(message).toMatch(
        new RegExp(`^Input ${name} holds a line break \\(U\\+00(0A|85)\\): check that the secret`)
      )
      expect(message).not.toContain('abab')
      expect(message).not.toMatch(/character \d/)
    }
  })
})

describe('readMainSettings, which character it names', () => {
  const free = { credential: 'free', 'base-url': 'https://s.test' }
  it.each([
    ['\u007f', 'a control character (U+007F)'],
    ['\u009f', 'a control character (U+009F)'],
    ['\u0085', 'a line break (U+0085)'],
    ['\r', 'a line break (U+000D)'],
    ['\u2028', 'a line break (U+2028)'],
    ['\u061c', 'a bidirectional text control (U+061C)'],
    ['\u200e', 'a bidirectional text control (U+200E)'],
    ['\u200f', 'a bidirectional text control (U+200F)'],
    ['\u202a', 'a bidirectional text control (U+202A)'],
    ['\u2066', 'a bidirectional text control (U+2066)'],
    ['\u2069', 'a bidirectional text control (U+2069)'],
    ['\udfff', 'an unpaired UTF-16 surrogate (U+DFFF)']
  ])('names %j as %s', (character, kind) => {
    expect(() => readMainSettings(reader({ ...free, 'env-prefix': `SVC${character}` }))).toThrow(
      `Input env-prefix is "SVC\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}": it holds ${kind} at character 4.`
    )
  })

  it('lets other characters outside ASCII through to the parser that reads them', () => {
    expect(() => readMainSettings(reader({ ...free, 'env-prefix': 'SVC\u00e9' }))).toThrow(
      /^Input env-prefix is "SVC\u00e9": expected an upper-case letter/
    )
    expect(() => readMainSettings(reader({ ...free, 'env-prefix': 'SVC\u2067' }))).toThrow(
      'it holds a bidirectional text control (U+2067) at character 4.'
    )
  })

  it('accepts tabs inside the lines of expose, and refuses them elsewhere', () => {
    expect(
      readMainSettings(reader({ ...free, expose: 'web=3000\n\tapi=3001\t' })).tunnel?.entries
    ).toStrictEqual([
      { name: 'web', host: 'localhost', port: 3000 },
      { name: 'api', host: 'localhost', port: 3001 }
    ])
    expect(() => readMainSettings(reader({ ...free, 'env-prefix': 'a\tb' }))).toThrow(
      'Input env-prefix is "a\\u0009b": it holds a control character (U+0009) at character 2.'
    )
  })

  it('counts the lines of a list from 1, across CRLF line ends', () => {
    expect(() =>
      readMainSettings(reader({ ...free, expose: 'web=3000\r\napi=3001\r\nx=\u00013' }))
    ).toThrow(
      'Input expose, line 3, is "x=\\u00013": it holds a control character (U+0001) at character 3.'
    )
  })
})
