/**
 * The HAR reader that `replay` trusts: what it sends for each recorded entry (method, target as
 * sent, headers, body, and whether that body is whole), and which files it refuses before any
 * request is sent. Its input is any producer's file, so every field is checked.
 */
import { HarError, readHar, type HarRequest } from '../../src/cli/har-read.js'

type Json = Record<string, unknown>

function har(...entries: unknown[]): string {
  return JSON.stringify({ log: { version: '1.2', entries } })
}

function entry(request: Json, more: Json = {}): Json {
  return {
    request: { method: 'GET', url: 'https://app.example/', headers: [], ...request },
    ...more
  }
}

function one(request: Json, more: Json = {}): HarRequest {
  const [read] = readHar(har(entry(request, more)))
  return read
}

function refusal(text: string): string {
  try {
    readHar(text)
    return 'accepted'
  } catch (error) {
    if (!(error instanceof HarError)) throw error
    return error.message
  }
}

describe('readHar', () => {
  it('reads each entry in order, numbered from 1, with its headers', () => {
    const read = readHar(
      har(
        entry({
          method: 'POST',
          url: 'https://app.example/a',
          headers: [{ name: 'X-A', value: '1' }]
        }),
        entry({
          url: 'https://app.example/b',
          headers: [
            { name: 'Accept', value: '*/*' },
            { name: 'x-b', value: '' }
          ]
        })
      )
    )
    expect(read).toEqual([
      { index: 1, method: 'POST', target: '/a', headers: [['X-A', '1']] },
      {
        index: 2,
        method: 'GET',
        target: '/b',
        headers: [
          ['Accept', '*/*'],
          ['x-b', '']
        ]
      }
    ])
  })

  it('reads an empty list as no requests', () => {
    expect(readHar(har())).toEqual([])
  })

  it.each([
    ['https://app.example:8443/a/../b/%2e%2E/c?x=%41&y#frag', '/a/../b/%2e%2E/c?x=%41&y'],
    ['http://user:pw@app.example/p', '/p'],
    ['https://app.example', '/'],
    ['https://app.example?q=1', '/?q=1'],
    ['https://app.example#top', '/'],
    ['wss+x.y-z://h/ws', '/ws'],
    ['/already/a/path?q', '/already/a/path?q'],
    ['relative/path', '/relative/path'],
    ['*', '*'],
    ['', '/'],
    ['1http://h/x', '/1http://h/x']
  ])('takes the target of %j as %j, never normalised', (url, target) => {
    expect(one({ url }).target).toBe(target)
  })

  it('reads the recorded status when it is a whole number, and no status otherwise', () => {
    expect(one({}, { response: { status: 201 } }).status).toBe(201)
    expect(one({}, { response: { status: 0 } }).status).toBe(0)
    expect(one({}, { response: { status: 200.5 } })).not.toHaveProperty('status')
    expect(one({}, { response: { status: '200' } })).not.toHaveProperty('status')
    expect(one({}, {})).not.toHaveProperty('status')
  })

  describe("the tunnel's own answers (log._tunnelAnswers)", () => {
    const at = (second: number, path: string, more: Json = {}): Json => ({
      ...entry({ url: `https://app.example${path}` }, more),
      startedDateTime: `2026-11-28T04:00:0${second}.000Z`
    })
    const withAnswers = (entries: unknown[], answers: unknown): string =>
      JSON.stringify({ log: { version: '1.2', entries, _tunnelAnswers: answers } })
    const summary = (text: string) =>
      readHar(text).map(({ index, target, tunnelAnswer, tunnelOutcome }) => ({
        index,
        target,
        tunnelAnswer,
        tunnelOutcome
      }))

    it('merges them with the entries in the order the requests came, and marks them', () => {
      const entries = [at(1, '/a'), at(3, '/c'), at(5, '/e')]
      const answers = [
        at(0, '/first', { _tunnel: 'refused' }),
        at(3, '/same-time'),
        at(4, '/d', { _tunnel: { outcome: 'proof' } }),
        at(6, '/last', { _tunnel: 'admitted' })
      ]
      expect(summary(withAnswers(entries, answers))).toEqual([
        { index: 1, target: '/first', tunnelAnswer: true, tunnelOutcome: 'refused' },
        { index: 2, target: '/a', tunnelAnswer: undefined, tunnelOutcome: undefined },
        // An entry that started at the same moment as an answer comes first.
        { index: 3, target: '/c', tunnelAnswer: undefined, tunnelOutcome: undefined },
        // An outcome the reader does not know is still the tunnel's.
        { index: 4, target: '/same-time', tunnelAnswer: true, tunnelOutcome: 'tunnel' },
        { index: 5, target: '/d', tunnelAnswer: true, tunnelOutcome: 'proof' },
        { index: 6, target: '/e', tunnelAnswer: undefined, tunnelOutcome: undefined },
        { index: 7, target: '/last', tunnelAnswer: true, tunnelOutcome: 'admitted' }
      ])
    })

    it('reads them when there are no entries, and refuses a list that is not one', () => {
      expect(summary(withAnswers([], [at(1, '/x')]))).toEqual([
        { index: 1, target: '/x', tunnelAnswer: true, tunnelOutcome: 'tunnel' }
      ])
      expect(refusal(withAnswers([], { 0: at(1, '/x') }))).toBe(
        'has a log._tunnelAnswers that is not a list'
      )
    })
  })

  it("reads the tunnel's own outcomes, as a word or an object, and only those", () => {
    for (const outcome of ['refused', 'unreachable', 'not-http', 'proof']) {
      expect(one({}, { _tunnel: outcome }).tunnelOutcome).toBe(outcome)
      expect(one({}, { _tunnel: { outcome } }).tunnelOutcome).toBe(outcome)
    }
    expect(one({}, { _tunnel: 'forwarded' })).not.toHaveProperty('tunnelOutcome')
    expect(one({}, { _tunnel: { outcome: 'forwarded' } })).not.toHaveProperty('tunnelOutcome')
    expect(one({}, { _tunnel: { outcome: 1 } })).not.toHaveProperty('tunnelOutcome')
    expect(one({}, { _tunnel: ['refused'] })).not.toHaveProperty('tunnelOutcome')
    expect(one({}, {})).not.toHaveProperty('tunnelOutcome')
  })

  describe('bodies', () => {
    it('reads a text body as UTF-8 and a base64 one as bytes', () => {
      expect(one({ postData: { mimeType: 'text/plain', text: 'héllo' } }).body).toEqual({
        bytes: Buffer.from('héllo', 'utf8')
      })
      expect(
        one({ postData: { text: Buffer.from([0, 255, 1]).toString('base64'), encoding: 'base64' } })
          .body
      ).toEqual({
        bytes: Buffer.from([0, 255, 1])
      })
    })

    it('reads a body as whole when its declared size is what was kept, or less', () => {
      expect(one({ bodySize: 5, postData: { text: 'hello' } }).body).toEqual({
        bytes: Buffer.from('hello')
      })
      expect(one({ bodySize: 0, postData: { text: 'hello' } }).body).toEqual({
        bytes: Buffer.from('hello')
      })
      expect(one({ bodySize: -1, postData: { text: 'hello' } }).body).toEqual({
        bytes: Buffer.from('hello')
      })
    })

    it('reads a body as cut when bodySize is larger than the bytes kept', () => {
      expect(one({ bodySize: 6, postData: { text: 'hello' } }).body).toEqual({
        bytes: Buffer.from('hello'),
        incomplete: 'its body was cut at 5 of 6 bytes in the HAR (record with a larger log-bodies)'
      })
    })

    it.each([
      ['postData._truncated', { postData: { text: 'hel', _truncated: true } }, {}],
      ['request._truncated', { postData: { text: 'hel' }, _truncated: true }, {}],
      [
        '_tunnel.bodyTruncated.request',
        { postData: { text: 'hel' } },
        { _tunnel: { bodyTruncated: { request: true } } }
      ]
    ])('reads a body as cut when %s says so', (_, request, more) => {
      expect(one(request, more).body).toEqual({
        bytes: Buffer.from('hel'),
        incomplete: 'its body was cut at 3 bytes in the HAR (record with a larger log-bodies)'
      })
    })

    it('reads a body as whole when the marks say false, or only the response was cut', () => {
      expect(
        one(
          { postData: { text: 'hel', _truncated: false }, _truncated: 'yes' },
          { _tunnel: { bodyTruncated: { request: false, response: true } } }
        ).body
      ).toEqual({ bytes: Buffer.from('hel') })
    })

    it('says a body was not recorded when the file declares one but kept none', () => {
      expect(one({ bodySize: 177 }).body).toEqual({
        bytes: Buffer.alloc(0),
        incomplete: 'its 177-byte body was not recorded (record with log-bodies)'
      })
      const chunked = { name: 'Transfer-Encoding', value: 'gzip, Chunked' }
      for (const bodySize of [-1, undefined]) {
        expect(one({ bodySize, headers: [chunked] }).body).toEqual({
          bytes: Buffer.alloc(0),
          incomplete: 'its chunked body was not recorded (record with log-bodies)'
        })
      }
    })

    it('reads no body when the file declares none', () => {
      expect(one({})).not.toHaveProperty('body')
      expect(one({ bodySize: 0 })).not.toHaveProperty('body')
      expect(one({ bodySize: -1 })).not.toHaveProperty('body')
      expect(
        one({ bodySize: 0, headers: [{ name: 'Transfer-Encoding', value: 'chunked' }] })
      ).not.toHaveProperty('body')
      expect(
        one({ bodySize: -1, headers: [{ name: 'X-Transfer-Encoding', value: 'chunked' }] })
      ).not.toHaveProperty('body')
      expect(
        one({ bodySize: -1, headers: [{ name: 'Transfer-Encoding', value: 'gzip' }] })
      ).not.toHaveProperty('body')
      expect(one({ postData: { mimeType: 'text/plain' } })).not.toHaveProperty('body')
    })
  })

  describe('refuses, before any request is sent,', () => {
    it.each([
      ['text that is not JSON', '{"log":', 'is not JSON'],
      ['JSON without log', '{}', 'has no log.entries list: it is not a HAR file'],
      ['a log without entries', '{"log":{}}', 'has no log.entries list: it is not a HAR file'],
      [
        'entries that are not a list',
        '{"log":{"entries":{}}}',
        'has no log.entries list: it is not a HAR file'
      ],
      ['a log that is a list', '{"log":[]}', 'has no log.entries list: it is not a HAR file'],
      ['a file that is a list', '[]', 'has no log.entries list: it is not a HAR file'],
      ['null', 'null', 'has no log.entries list: it is not a HAR file']
    ])('%s', (_, text, message) => {
      expect(refusal(text)).toBe(message)
    })

    it.each([
      ['an entry without a request', { response: {} }, 'entry 2 has no request method or url'],
      [
        'a request without a method',
        { request: { url: '/' } },
        'entry 2 has no request method or url'
      ],
      [
        'a request without a url',
        { request: { method: 'GET' } },
        'entry 2 has no request method or url'
      ],
      [
        'a url that is not text',
        { request: { method: 'GET', url: 1 } },
        'entry 2 has no request method or url'
      ],
      [
        'headers that are not a list',
        { request: { method: 'GET', url: '/', headers: {} } },
        'entry 2 has request headers that are not a list'
      ],
      [
        'a header without a value',
        { request: { method: 'GET', url: '/', headers: [{ name: 'A' }] } },
        'entry 2 has a request header without a name or value'
      ],
      [
        'a header without a name',
        { request: { method: 'GET', url: '/', headers: [{ value: 'a' }] } },
        'entry 2 has a request header without a name or value'
      ],
      [
        'a body in another encoding',
        { request: { method: 'POST', url: '/', postData: { text: 'aGk=', encoding: 'gzip' } } },
        'entry 2 has a body in an encoding other than base64'
      ]
    ])('a file with %s, naming the entry', (_, bad, message) => {
      expect(refusal(har(entry({}), bad))).toBe(message)
    })
  })

  it('reads a request without headers as one with none', () => {
    expect(readHar(har({ request: { method: 'GET', url: '/' } }))[0].headers).toEqual([])
  })
})
