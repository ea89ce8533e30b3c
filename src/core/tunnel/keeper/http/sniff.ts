/**
 * Whether a connection's first bytes begin an HTTP/1.x request: `METHOD SP target SP HTTP/1.x`
 * then CRLF. Decided byte by byte, so a client that sends something else is known at its first
 * byte that cannot be HTTP, without waiting for a line that may never come.
 */

export type Sniffed = 'http' | 'not-http' | 'more'

const TOKEN = new Uint8Array(256)
for (const character of "!#$%&'*+.^_`|~-") TOKEN[character.charCodeAt(0)] = 1
for (let code = 0x30; code <= 0x39; code += 1) TOKEN[code] = 1
for (let code = 0x41; code <= 0x5a; code += 1) TOKEN[code] = 1
for (let code = 0x61; code <= 0x7a; code += 1) TOKEN[code] = 1

const VERSION = Buffer.from('HTTP/1.')
const SP = 0x20
const CR = 0x0d
const LF = 0x0a

/** `maxLine`: a request line longer than this is not read as HTTP. */
export function sniffRequestLine(bytes: Buffer, maxLine: number): Sniffed {
  let at = 0
  // Empty lines before the request line are allowed (RFC 9112, 2.2).
  while (at < bytes.length && (bytes[at] === CR || bytes[at] === LF)) at += 1
  const method = at
  while (at < bytes.length && TOKEN[bytes[at]] === 1) at += 1
  if (at === bytes.length) return more(bytes, maxLine)
  if (at === method || bytes[at] !== SP) return 'not-http'
  at += 1
  const target = at
  // Visible ASCII and any byte above it (raw UTF-8 some clients send); no controls, no spaces.
  while (at < bytes.length && bytes[at] > SP && bytes[at] !== 0x7f) at += 1
  if (at === bytes.length) return more(bytes, maxLine)
  if (at === target || bytes[at] !== SP) return 'not-http'
  at += 1
  const tail = [...VERSION, -1, CR, LF]
  for (const expected of tail) {
    if (at === bytes.length) return more(bytes, maxLine)
    const byte = bytes[at]
    const fits = expected === -1 ? byte === 0x30 || byte === 0x31 : byte === expected
    if (!fits) return 'not-http'
    at += 1
  }
  return 'http'
}

function more(bytes: Buffer, maxLine: number): Sniffed {
  return bytes.length > maxLine ? 'not-http' : 'more'
}
