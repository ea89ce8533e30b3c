/**
 * The keeper's streaming reader of HTTP/1.x messages: where each head and body ends, whatever
 * way the bytes were cut into chunks, with every byte passed on unchanged. A reader that ended a
 * body early or late would let a request hidden in a body past the gate.
 */
import {
  FramingError,
  MessageReader,
  type BodyFraming
} from '../../../../../src/core/tunnel/keeper/http/framing.js'
import { parseHead, requestFraming } from '../../../../../src/core/tunnel/keeper/http/rules.js'

interface Message {
  head: string
  /** The body's bytes as passed on: chunk framing included. */
  body: string
  /** The body's content. */
  data: string
  ended: boolean
}

/** A reader that frames requests as the keeper does (or as `framing` says), and what it saw. */
function recorder(
  options: {
    maxHeadBytes?: number
    framing?: (head: string) => BodyFraming
    /** Pause as the handler of the first head does, until it has decided on the request. */
    pauseOnFirstHead?: boolean
  } = {}
) {
  const messages: Message[] = []
  const raw: string[] = []
  const bodyPieces: string[] = []
  const current = (): Message => messages[messages.length - 1]
  const reader = new MessageReader(
    {
      head(bytes) {
        const text = bytes.toString('latin1')
        messages.push({ head: text, body: '', data: '', ended: false })
        if (options.pauseOnFirstHead === true && messages.length === 1) reader.pause()
        return options.framing?.(text) ?? requestFraming(parseHead(bytes).headers)
      },
      body(bytes) {
        bodyPieces.push(bytes.toString('latin1'))
        current().body += bytes.toString('latin1')
      },
      data(bytes) {
        current().data += bytes.toString('latin1')
      },
      end() {
        expect(current().ended).toBe(false)
        current().ended = true
      },
      raw(bytes) {
        raw.push(bytes.toString('latin1'))
      }
    },
    options.maxHeadBytes ?? 1024
  )
  const feed = (...chunks: string[]): void => {
    for (const chunk of chunks) reader.feed(Buffer.from(chunk, 'latin1'))
  }
  return { reader, messages, raw, bodyPieces, feed }
}

/** Every way of cutting `text` in two, and one byte at a time. */
function cuts(text: string): string[][] {
  const ways = [[...text]]
  for (let at = 0; at <= text.length; at++) ways.push([text.slice(0, at), text.slice(at)])
  return ways
}

function refusal(run: () => void): string {
  try {
    run()
    return 'accepted'
  } catch (error) {
    if (!(error instanceof FramingError)) throw error
    return `${error.status} ${error.message}`
  }
}

const GET = 'GET / HTTP/1.1\r\nHost: a\r\n\r\n'
const POST = 'POST /p HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello'
const CHUNKED =
  'POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n' +
  '5\r\nhello\r\n1a ; name=value\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nTrailer: t\r\n\r\n'

describe('MessageReader', () => {
  it('reads a request without a body, with a length, and chunked, however the bytes are cut', () => {
    const stream = `\r\n${GET}${POST}${CHUNKED}${GET}`
    for (const chunks of cuts(stream)) {
      const { messages, feed } = recorder()
      feed(...chunks)
      expect(messages).toEqual([
        { head: GET, body: '', data: '', ended: true },
        {
          head: 'POST /p HTTP/1.1\r\nContent-Length: 5\r\n\r\n',
          body: 'hello',
          data: 'hello',
          ended: true
        },
        {
          head: 'POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n',
          body: CHUNKED.slice(CHUNKED.indexOf('\r\n\r\n') + 4),
          data: 'helloabcdefghijklmnopqrstuvwxyz',
          ended: true
        },
        { head: GET, body: '', data: '', ended: true }
      ])
    }
  })

  it('passes one body piece per chunk, not one per byte', () => {
    const { bodyPieces, feed } = recorder()
    feed(CHUNKED.slice(0, 60), CHUNKED.slice(60))
    expect(bodyPieces).toEqual([
      CHUNKED.slice(CHUNKED.indexOf('\r\n\r\n') + 4, 60),
      CHUNKED.slice(60)
    ])
  })

  it('passes no empty body piece when a head ends where a chunk does', () => {
    const { bodyPieces, messages, feed } = recorder()
    const head = 'POST /p HTTP/1.1\r\nContent-Length: 5\r\n\r\n'
    feed(head, 'hel', 'lo')
    expect(bodyPieces).toEqual(['hel', 'lo'])
    expect(messages[0].ended).toBe(true)
  })

  it('ends a body of length 0 at once, and reads the next request', () => {
    const empty = 'POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n'
    const { messages, feed } = recorder()
    feed(empty + GET)
    expect(messages).toEqual([
      { head: empty, body: '', data: '', ended: true },
      { head: GET, body: '', data: '', ended: true }
    ])
  })

  it('reads a body until the sender ends, and only then ends it', () => {
    const { reader, messages, feed } = recorder({ framing: () => ({ kind: 'until-close' }) })
    feed('HTTP/1.1 200 OK\r\n\r\nsome', ' more')
    expect(messages[0]).toMatchObject({ body: 'some more', data: 'some more', ended: false })
    reader.senderEnded()
    expect(messages[0].ended).toBe(true)
    // The end of a sender whose body had a length changes nothing.
    reader.senderEnded()
    expect(messages).toHaveLength(1)
  })

  it('passes every byte after a switch to raw unchanged, also bytes that look like HTTP', () => {
    const { messages, raw, feed } = recorder({ framing: () => ({ kind: 'raw' }) })
    feed(`HTTP/1.1 101 Switching\r\n\r\n${GET}`, 'x')
    expect(messages).toEqual([
      { head: 'HTTP/1.1 101 Switching\r\n\r\n', body: '', data: '', ended: false }
    ])
    expect(raw).toEqual([GET, 'x'])
  })

  it('holds the bytes after a message while paused, and reads them on resume', () => {
    const { reader, messages, feed } = recorder({ pauseOnFirstHead: true })
    feed(POST + GET.slice(0, 5), GET.slice(5))
    expect(messages.map(message => message.head)).toEqual([
      'POST /p HTTP/1.1\r\nContent-Length: 5\r\n\r\n'
    ])
    reader.resume()
    expect(messages.map(message => [message.head, message.ended])).toEqual([
      ['POST /p HTTP/1.1\r\nContent-Length: 5\r\n\r\n', true],
      [GET, true]
    ])
    // Resumed for good: later requests are read as they come.
    feed(GET)
    expect(messages).toHaveLength(3)
  })

  it('reads on after resume when nothing was held', () => {
    const { reader, messages, feed } = recorder({ pauseOnFirstHead: true })
    feed(GET)
    reader.resume()
    feed(GET)
    expect(messages.map(message => message.ended)).toEqual([true, true])
  })

  it('gives the held bytes, then every later one, to raw after passRaw', () => {
    const { reader, messages, raw, feed } = recorder({ pauseOnFirstHead: true })
    feed(`${GET}\x00binary`)
    reader.passRaw()
    feed('more')
    expect(messages).toHaveLength(1)
    expect(raw).toEqual(['\x00binary', 'more'])
  })

  it('reads a head exactly as long as its bound, and refuses one a byte longer with 431', () => {
    const exact = `GET / HTTP/1.1\r\nX: ${'a'.repeat(20)}\r\n\r\n`
    for (const chunks of [[exact], [exact.slice(0, 10), exact.slice(10)]]) {
      const { messages, feed } = recorder({ maxHeadBytes: exact.length })
      feed(...chunks)
      expect(messages).toHaveLength(1)
      const tooLong = recorder({ maxHeadBytes: exact.length - 1 })
      expect(refusal(() => tooLong.feed(...chunks))).toBe(
        '431 the request head is larger than the tunnel reads'
      )
    }
  })

  it('refuses a head that never ends once it outgrows its bound, not before', () => {
    const { feed } = recorder({ maxHeadBytes: 10 })
    feed('GET / HTT')
    feed('P')
    expect(refusal(() => feed('/'))).toBe('431 the request head is larger than the tunnel reads')
    const blanks = recorder({ maxHeadBytes: 10 })
    // Empty lines before the request line do not count towards it.
    blanks.feed('\r\n'.repeat(20) + 'GET / HTT')
    expect(blanks.messages).toHaveLength(0)
  })

  it('finds a head whose CRLF CRLF is cut across chunks at any point', () => {
    for (let split = 1; split < 4; split++) {
      const { messages, feed } = recorder()
      const cut = GET.length - 4 + split
      feed(GET.slice(0, cut), GET.slice(cut))
      expect(messages).toEqual([{ head: GET, body: '', data: '', ended: true }])
    }
  })

  it('reads a chunk size in either case, with blanks and extensions', () => {
    const body = 'A\r\n0123456789\r\nb \t;x\r\nabcdefghijk\r\n0\r\n\r\n'
    const { messages, feed } = recorder()
    feed(`POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n${body}`)
    expect(messages[0]).toMatchObject({ data: '0123456789abcdefghijk', ended: true })
  })

  it('reads a chunk size of twelve hexadecimal digits', () => {
    const { messages, feed } = recorder()
    feed(
      'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n00000000000A\r\n0123456789\r\n0\r\n\r\n'
    )
    expect(messages[0]).toMatchObject({ data: '0123456789', ended: true })
  })

  it.each([
    [
      'a chunk longer than its size',
      '3\r\nabcd\r\n0\r\n\r\n',
      '400 a chunk is longer than its size'
    ],
    [
      'a size that is not hexadecimal',
      'g\r\nabc\r\n0\r\n\r\n',
      '400 a chunk size is not hexadecimal'
    ],
    ['a signed size', '+3\r\nabc\r\n0\r\n\r\n', '400 a chunk size is not hexadecimal'],
    ['an empty size', '\r\nabc\r\n0\r\n\r\n', '400 a chunk size is not hexadecimal'],
    [
      'a size of thirteen digits',
      '0000000000003\r\nabc\r\n0\r\n\r\n',
      '400 a chunk size is not hexadecimal'
    ],
    ['text after the size', '3x\r\nabc\r\n0\r\n\r\n', '400 a chunk size is not hexadecimal'],
    ['text before the size', 'x3\r\nabc\r\n0\r\n\r\n', '400 a chunk size is not hexadecimal'],
    [
      'a control in an extension',
      '3;a\x01\r\nabc\r\n0\r\n\r\n',
      '400 a chunk size is not hexadecimal'
    ],
    ['a size ended by LF alone', '3\nabc\r\n0\r\n\r\n', '400 a chunk line does not end in CRLF'],
    ['a chunk ended by LF alone', '3\r\nabc\n0\r\n\r\n', '400 a chunk line does not end in CRLF'],
    ['a trailer ended by LF alone', '0\r\nT: t\n\r\n', '400 a chunk line does not end in CRLF']
  ])('refuses %s with 400, however the bytes are cut', (_, body, expected) => {
    const request = `POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n${body}`
    for (const chunks of cuts(request)) {
      const { feed } = recorder()
      expect(refusal(() => feed(...chunks))).toBe(expected)
    }
  })

  it('reads a chunk line up to 4096 bytes and refuses a longer one that never ends', () => {
    const start = 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n'
    const extension = `3;${'e'.repeat(4096 - 2 - 2)}`
    const ok = recorder()
    ok.feed(start, extension.slice(0, 2000), `${extension.slice(2000)}\r\nabc\r\n0\r\n\r\n`)
    expect(ok.messages[0]).toMatchObject({ data: 'abc', ended: true })
    const long = recorder()
    long.feed(start, extension)
    long.feed('ee')
    expect(refusal(() => long.feed('e'))).toBe('400 a chunk line is too long')
  })

  it('keeps reading after a zero-size chunk until the trailers end', () => {
    const { messages, feed } = recorder()
    feed('POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA: 1\r\nB: 2\r\n')
    expect(messages[0].ended).toBe(false)
    feed(`\r\n${GET}`)
    expect(messages.map(message => message.ended)).toEqual([true, true])
  })
})
