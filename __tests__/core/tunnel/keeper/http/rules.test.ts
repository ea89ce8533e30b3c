/**
 * The keeper's reading of a request head, field by field: what it accepts, what it refuses with
 * which status, and how it decides where a body ends. A request it frames differently from the
 * app could smuggle a second request past the gate, so every ambiguous head must be refused.
 */
import { FramingError } from '../../../../../src/core/tunnel/keeper/http/framing.js'
import {
  asksToSwitch,
  parseHead,
  parseRequestLine,
  parseStatus,
  requestFraming,
  responseFraming,
  rewriteHead,
  valuesOf
} from '../../../../../src/core/tunnel/keeper/http/rules.js'

function head(...lines: string[]): Buffer {
  return Buffer.from([...lines, '', ''].join('\r\n'), 'latin1')
}

/** The status and message a refusal carries, or 'accepted'. */
function refusal(run: () => unknown): string {
  try {
    run()
    return 'accepted'
  } catch (error) {
    if (!(error instanceof FramingError)) throw error
    return `${error.status} ${error.message}`
  }
}

function fields(...pairs: [string, string][]): [string, string][] {
  return pairs
}

describe('parseHead', () => {
  it('gives the start line, the field lines as sent, and each field trimmed of blanks', () => {
    const parsed = parseHead(head('GET / HTTP/1.1', 'Host:  example.test \t', 'X-Empty:', 'A:b'))
    expect(parsed).toEqual({
      startLine: 'GET / HTTP/1.1',
      lines: ['Host:  example.test \t', 'X-Empty:', 'A:b'],
      headers: [
        ['Host', 'example.test'],
        ['X-Empty', ''],
        ['A', 'b']
      ]
    })
  })

  it('keeps bytes above ASCII as latin1, one character per byte', () => {
    const bytes = Buffer.concat([
      Buffer.from('GET / HTTP/1.1\r\nX-Name: '),
      Buffer.from([0xe9, 0xff]),
      Buffer.from('\r\n\r\n')
    ])
    expect(parseHead(bytes).headers).toEqual([['X-Name', '\u00e9\u00ff']])
  })

  it('gives no fields for a head of one line', () => {
    expect(parseHead(head('GET / HTTP/1.1'))).toEqual({
      startLine: 'GET / HTTP/1.1',
      lines: [],
      headers: []
    })
  })

  it.each([
    ['a folded line', ['Host: a', ' folded']],
    ['a space before the colon', ['Host : a']],
    ['no colon', ['Host a']],
    ['an empty name', [': a']],
    ['a bare CR inside a value', ['Host: a\rb']],
    ['a bare LF inside a value', ['Host: a\nTransfer-Encoding: chunked']]
  ])('refuses %s with 400', (_, lines) => {
    expect(refusal(() => parseHead(head('GET / HTTP/1.1', ...lines)))).toBe(
      '400 a header line is malformed'
    )
  })
})

describe('parseRequestLine', () => {
  it('splits method, target and version', () => {
    expect(parseRequestLine('POST /hooks?a=1 HTTP/1.0')).toEqual({
      method: 'POST',
      target: '/hooks?a=1',
      httpVersion: 'HTTP/1.0'
    })
  })

  it.each([
    'GET  / HTTP/1.1',
    'GET / HTTP/2.0',
    'GET /a b HTTP/1.1',
    'G(T / HTTP/1.1',
    'GET / HTTP/1.1 ',
    ''
  ])('refuses %j with 400', line => {
    expect(refusal(() => parseRequestLine(line))).toBe('400 the request line is malformed')
  })
})

describe('parseStatus', () => {
  it('reads the status, with or without a reason', () => {
    expect(parseStatus('HTTP/1.1 404 Not Found')).toBe(404)
    expect(parseStatus('HTTP/1.0 200')).toBe(200)
  })

  it.each(['HTTP/2 200 OK', 'HTTP/1.1 099 Low', 'HTTP/1.1 20 OK', 'SSH-2.0-OpenSSH'])(
    'answers %j with 502: the app did not speak HTTP/1.x',
    line => {
      expect(refusal(() => parseStatus(line))).toBe(
        '502 the app answered something other than HTTP/1.x'
      )
    }
  )
})

describe('valuesOf', () => {
  it('gives every value of a field, whatever the case of its name, in order', () => {
    const headers = fields(['Accept', 'a'], ['X', 'x'], ['ACCEPT', 'b'])
    expect(valuesOf(headers, 'accept')).toEqual(['a', 'b'])
    expect(valuesOf(headers, 'missing')).toEqual([])
  })
})

describe('requestFraming', () => {
  it('reads no body without Content-Length or Transfer-Encoding', () => {
    expect(requestFraming(fields(['Host', 'a']))).toEqual({ kind: 'none' })
  })

  it('reads a length that every Content-Length agrees on, once or repeated', () => {
    expect(requestFraming(fields(['Content-Length', '12']))).toEqual({ kind: 'length', length: 12 })
    expect(requestFraming(fields(['content-length', ' 7 , 7'], ['Content-Length', '7']))).toEqual({
      kind: 'length',
      length: 7
    })
    expect(requestFraming(fields(['Content-Length', '0']))).toEqual({ kind: 'length', length: 0 })
    expect(requestFraming(fields(['Content-Length', '999999999999999']))).toEqual({
      kind: 'length',
      length: 999999999999999
    })
  })

  it.each([
    [
      'two lengths',
      [
        ['Content-Length', '5'],
        ['Content-Length', '6']
      ]
    ],
    ['two lengths in one field', [['Content-Length', '5, 6']]],
    ['a sign', [['Content-Length', '+5']]],
    ['a negative length', [['Content-Length', '-1']]],
    ['a hexadecimal length', [['Content-Length', '0x5']]],
    ['digits then text', [['Content-Length', '5a']]],
    ['text then digits', [['Content-Length', 'a5']]],
    ['sixteen digits', [['Content-Length', '1000000000000000']]],
    ['an empty length', [['Content-Length', '']]]
  ] as [string, [string, string][]][])('refuses %s with 400', (_, headers) => {
    expect(refusal(() => requestFraming(headers))).toBe(
      '400 the Content-Length is not one whole number'
    )
  })

  it('reads a chunked body when chunked is the last coding, in any case and field', () => {
    expect(requestFraming(fields(['Transfer-Encoding', 'Chunked']))).toEqual({ kind: 'chunked' })
    expect(requestFraming(fields(['Transfer-Encoding', 'gzip, chunked']))).toEqual({
      kind: 'chunked'
    })
    expect(
      requestFraming(fields(['Transfer-Encoding', 'gzip'], ['transfer-encoding', ' chunked ,']))
    ).toEqual({ kind: 'chunked' })
  })

  it('refuses Transfer-Encoding with Content-Length, whichever comes first', () => {
    const message = '400 a request has both Transfer-Encoding and Content-Length'
    expect(
      refusal(() =>
        requestFraming(fields(['Transfer-Encoding', 'chunked'], ['Content-Length', '3']))
      )
    ).toBe(message)
    expect(
      refusal(() =>
        requestFraming(fields(['Content-Length', '3'], ['Transfer-Encoding', 'chunked']))
      )
    ).toBe(message)
  })

  it.each([
    ['chunked then gzip', [['Transfer-Encoding', 'chunked, gzip']]],
    ['gzip alone', [['Transfer-Encoding', 'gzip']]],
    ['an empty coding', [['Transfer-Encoding', '']]],
    [
      'chunked in an earlier field only',
      [
        ['Transfer-Encoding', 'chunked'],
        ['Transfer-Encoding', 'identity']
      ]
    ],
    ['a misspelt chunked', [['Transfer-Encoding', 'chunked-ish']]]
  ] as [string, [string, string][]][])('refuses a request body coded %s with 400', (_, headers) => {
    expect(refusal(() => requestFraming(headers))).toBe('400 a request body is not chunked last')
  })
})

describe('asksToSwitch', () => {
  it('is true for CONNECT, and for an Upgrade that Connection names', () => {
    expect(asksToSwitch('CONNECT', [])).toBe(true)
    expect(
      asksToSwitch('GET', fields(['Upgrade', 'websocket'], ['Connection', 'keep-alive, Upgrade']))
    ).toBe(true)
  })

  it('is false for an Upgrade field alone, or Connection: upgrade alone', () => {
    expect(asksToSwitch('GET', fields(['Upgrade', 'websocket']))).toBe(false)
    expect(asksToSwitch('GET', fields(['Connection', 'upgrade']))).toBe(false)
    expect(asksToSwitch('GET', fields(['Upgrade', 'websocket'], ['Connection', 'upgraded']))).toBe(
      false
    )
    expect(asksToSwitch('connect', [])).toBe(false)
  })
})

describe('responseFraming', () => {
  const length = fields(['Content-Length', '5'])

  it('reads no body for 1xx, 204, 304 and any answer to HEAD', () => {
    for (const status of [100, 101, 199, 204, 304]) {
      expect(responseFraming('GET', status, length)).toEqual({ kind: 'none' })
    }
    expect(responseFraming('HEAD', 200, length)).toEqual({ kind: 'none' })
  })

  it('reads a body for 200, 205, 303 and 404 by their length', () => {
    for (const status of [200, 205, 303, 404]) {
      expect(responseFraming('GET', status, length)).toEqual({ kind: 'length', length: 5 })
    }
  })

  it('passes raw bytes after a 2xx answer to CONNECT, but not after a refusal', () => {
    expect(responseFraming('CONNECT', 200, [])).toEqual({ kind: 'raw' })
    expect(responseFraming('CONNECT', 299, [])).toEqual({ kind: 'raw' })
    expect(responseFraming('CONNECT', 300, length)).toEqual({ kind: 'length', length: 5 })
    expect(responseFraming('CONNECT', 407, [])).toEqual({ kind: 'until-close' })
  })

  it('reads chunked when chunked is last, else until the app closes', () => {
    expect(responseFraming('GET', 200, fields(['Transfer-Encoding', 'gzip, Chunked']))).toEqual({
      kind: 'chunked'
    })
    expect(responseFraming('GET', 200, fields(['Transfer-Encoding', 'chunked, gzip']))).toEqual({
      kind: 'until-close'
    })
    // Transfer-Encoding wins over Content-Length in an answer (RFC 9112, 6.3).
    expect(
      responseFraming('GET', 200, fields(['Content-Length', '5'], ['Transfer-Encoding', 'chunked']))
    ).toEqual({ kind: 'chunked' })
  })

  it('reads until the app closes without any length', () => {
    expect(responseFraming('GET', 200, [])).toEqual({ kind: 'until-close' })
    expect(responseFraming('GET', 200, fields(['Transfer-Encoding', ' , ']))).toEqual({
      kind: 'until-close'
    })
  })

  it('reads the length when Transfer-Encoding names no coding at all', () => {
    expect(
      responseFraming('GET', 200, fields(['Transfer-Encoding', ''], ['Content-Length', '5']))
    ).toEqual({ kind: 'length', length: 5 })
  })

  it('answers 502 for an app whose Content-Length disagrees with itself', () => {
    expect(
      refusal(() =>
        responseFraming('GET', 200, fields(['Content-Length', '5'], ['Content-Length', '6']))
      )
    ).toBe('502 the Content-Length is not one whole number')
  })
})

describe('rewriteHead', () => {
  const parsed = parseHead(
    head('GET /a HTTP/1.1', 'Host: example.test', 'X-Gate: secret', 'Accept: */*', 'x-gate: again')
  )
  const line = parseRequestLine(parsed.startLine)

  it('writes the new target and drops the named fields in any case, every other line unchanged', () => {
    expect(rewriteHead(parsed, line, '/b?c=1', ['X-GATE']).toString('latin1')).toBe(
      'GET /b?c=1 HTTP/1.1\r\nHost: example.test\r\nAccept: */*\r\n\r\n'
    )
  })

  it('keeps every field when none is named', () => {
    expect(rewriteHead(parsed, line, '/a', []).toString('latin1')).toBe(
      'GET /a HTTP/1.1\r\nHost: example.test\r\nX-Gate: secret\r\nAccept: */*\r\nx-gate: again\r\n\r\n'
    )
  })

  it('keeps bytes above ASCII in the target as they were', () => {
    expect(rewriteHead(parsed, line, '/\u00e9', []).subarray(0, 9)).toEqual(
      Buffer.from([...Buffer.from('GET /'), 0xe9, 0x20, 0x48, 0x54])
    )
  })

  it.each(['/a b', '/a\r\nX: y', '', '/a\x7f', '/\u0100'])('refuses the target %j', target => {
    expect(() => rewriteHead(parsed, line, target, [])).toThrow('a rewritten target is malformed')
  })
})
