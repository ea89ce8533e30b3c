/**
 * The head the app gets once a hook changed a request (rules.rewriteHead): another target, some
 * fields taken off, some added at the end (the Cookie the gate leaves the app), every other line
 * byte for byte; and nothing a hook gives can end a line early and smuggle a field in.
 */
import {
  parseHead,
  parseRequestLine,
  rewriteHead
} from '../../../../../src/core/tunnel/keeper/http/rules.js'

const bytes = (lines: string[]) => Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1')

const original = bytes([
  'GET /_tunnel-gate/s/page HTTP/1.1',
  'Host: web.example',
  'Cookie: a=1; tunnel-credentials-gate=v',
  'X-Keep:   spaced value',
  'cookie: b=2',
  'Authorization: Basic eDpz'
])
const head = parseHead(original)
const line = parseRequestLine(head.startLine)

it('replaces the target, takes off fields by any case, and adds fields after the rest', () => {
  const rewritten = rewriteHead(
    head,
    line,
    '/page',
    ['COOKIE', 'authorization'],
    [['Cookie', 'a=1; b=2']]
  )
  expect(rewritten.toString('latin1')).toBe(
    'GET /page HTTP/1.1\r\nHost: web.example\r\nX-Keep:   spaced value\r\nCookie: a=1; b=2\r\n\r\n'
  )
})

it('changes nothing else without fields to add', () => {
  expect(rewriteHead(head, line, line.target, []).equals(original)).toBe(true)
})

it.each([
  ['a value with a line break', ['Cookie', 'a=1\r\nX-Admin: yes']],
  ['a value with a bare line feed', ['Cookie', 'a=1\nX-Admin: yes']],
  ['a name with a space', ['Bad Name', 'x']],
  ['an empty name', ['', 'x']]
] as [string, [string, string]][])('refuses to add %s', (_, field) => {
  expect(() => rewriteHead(head, line, '/page', [], [field])).toThrow(
    'an added header is malformed'
  )
})

it('refuses a target with a space or a line break', () => {
  for (const target of ['/a b', '/a\r\nX: y', '']) {
    expect(() => rewriteHead(head, line, target, [])).toThrow('a rewritten target is malformed')
  }
})
