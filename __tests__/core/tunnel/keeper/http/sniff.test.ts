/**
 * How the keeper tells an HTTP/1.x client from anything else by its first bytes: an HTTP client
 * goes through the HTTP layer (and so the gate); anything else is decided at its first byte that
 * cannot be HTTP, and one that never finishes a line is not waited for past `maxLine`.
 */
import { sniffRequestLine } from '../../../../../src/core/tunnel/keeper/http/sniff.js'

const sniff = (text: string, maxLine = 100): string =>
  sniffRequestLine(Buffer.from(text, 'latin1'), maxLine)

describe('sniffRequestLine', () => {
  it.each([
    'GET / HTTP/1.1\r\n',
    'GET / HTTP/1.0\r\n',
    "M!#$%&'*+.^_`|~-09azAZ /x HTTP/1.1\r\n",
    '\r\n\n\rPOST /a?b=c HTTP/1.1\r\nHost: x\r\n',
    'GET /\u00e9\u0080\u00ff HTTP/1.1\r\n',
    'GET ! HTTP/1.1\r\n'
  ])('reads %j as HTTP', text => {
    expect(sniff(text)).toBe('http')
  })

  it.each([
    '',
    '\r\n',
    'GET',
    'GET ',
    'GET /',
    'GET / ',
    'GET / H',
    'GET / HTTP/1.',
    'GET / HTTP/1.1',
    'GET / HTTP/1.1\r'
  ])('waits for more after %j', text => {
    expect(sniff(text)).toBe('more')
  })

  it.each([
    ['an SSH banner', 'SSH-2.0-OpenSSH_9.6\r\n'],
    ['a TLS hello', '\x16\x03\x01\x02\x00'],
    ['a space first', ' GET / HTTP/1.1\r\n'],
    ['a method with a separator', 'GE(T / HTTP/1.1\r\n'],
    ['a method with a byte above ASCII', 'G\u00c9T / HTTP/1.1\r\n'],
    ['a method then a tab', 'GET\t/ HTTP/1.1\r\n'],
    ['no target', 'GET  HTTP/1.1\r\n'],
    ['a control in the target', 'GET /a\x01b HTTP/1.1\r\n'],
    ['DEL in the target', 'GET /a\x7f HTTP/1.1\r\n'],
    ['a tab after the target', 'GET /\tHTTP/1.1\r\n'],
    ['a target ended by a line', 'GET /\r\n'],
    ['HTTP/2', 'GET / HTTP/2.0\r\n'],
    ['HTTP/1.2', 'GET / HTTP/1.2\r\n'],
    ['HTTP/1./', 'GET / HTTP/1./\r\n'],
    ['a lower-case version', 'GET / http/1.1\r\n'],
    ['a line ended by LF alone', 'GET / HTTP/1.1\n'],
    ['CR without LF', 'GET / HTTP/1.1\rX'],
    ['HTTP/0.9', 'GET /\r\n\r\n']
  ])('refuses %s at once', (_, text) => {
    expect(sniff(text)).toBe('not-http')
  })

  it('stops waiting once the bytes outgrow the longest line it reads, not before', () => {
    const method = 'A'.repeat(20)
    expect(sniff(method, 20)).toBe('more')
    expect(sniff(method, 19)).toBe('not-http')
    const target = `GET /${'a'.repeat(15)}`
    expect(sniff(target, 20)).toBe('more')
    expect(sniff(`${target}b`, 20)).toBe('not-http')
    expect(sniff('GET / HTTP/1.', 13)).toBe('more')
    expect(sniff('GET / HTTP/1.', 12)).toBe('not-http')
    // A whole line is read as HTTP whatever its length: the bound is for lines that never end.
    expect(sniff('GET / HTTP/1.1\r\n', 4)).toBe('http')
  })
})
