/**
 * interpretAnswer on its own: which statuses succeed, what an error says, and how long the service
 * asks to wait. The error's fields are what the step's message and retries are built from.
 */
import { interpretAnswer } from '../../../src/core/service/answer.js'
import { ServiceError } from '../../../src/core/service/service-error.js'

const NOW = Date.parse('2026-11-23T10:00:00Z')

/** The error interpretAnswer throws, as its fields. */
function failure(status: number, text: string, header?: string | string[]) {
  try {
    interpretAnswer('credential-provision', status, text, header, NOW)
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError)
    const { kind, endpoint, message, status, code, serviceMessage, retryAfterSeconds } =
      error as ServiceError
    return { kind, endpoint, message, status, code, serviceMessage, retryAfterSeconds }
  }
  throw new Error('interpretAnswer did not throw')
}

const httpError = (status: number, message: string, fields: object = {}) => ({
  kind: 'http',
  endpoint: 'credential-provision',
  message,
  status,
  code: undefined,
  serviceMessage: undefined,
  retryAfterSeconds: undefined,
  ...fields
})

describe('a successful answer', () => {
  it.each([200, 201, 299])('returns the JSON of a %d', status => {
    expect(interpretAnswer('credential-provision', status, '{"a":[1]}')).toStrictEqual({ a: [1] })
  })

  it.each([199, 300])('takes %d for a failure', status => {
    expect(failure(status, '{}')).toStrictEqual(httpError(status, `HTTP ${status}`))
  })

  it('says how long a body that is not JSON was, in bytes, and nothing of it', () => {
    expect(failure(200, '{"token":"é')).toStrictEqual({
      kind: 'bad-response',
      endpoint: 'credential-provision',
      message: 'HTTP 200 with a body that is not JSON (12 bytes, not shown)',
      status: 200,
      code: undefined,
      serviceMessage: undefined,
      retryAfterSeconds: undefined
    })
    expect(failure(204, ' \n')).toMatchObject({
      kind: 'bad-response',
      message: 'HTTP 204 with an empty body'
    })
  })
})

describe('the body', () => {
  it('drops one byte order mark at the start, as fetch json() does', () => {
    expect(interpretAnswer('credential-provision', 200, '\uFEFF{"a":1}')).toStrictEqual({ a: 1 })
    expect(failure(200, '{"a":1}\uFEFF').message).toBe(
      'HTTP 200 with a body that is not JSON (10 bytes, not shown)'
    )
  })

  it('takes any 2xx from revoke-token as done, with or without a body', () => {
    expect(interpretAnswer('revoke-token', 204, '')).toBeUndefined()
    expect(interpretAnswer('revoke-token', 202, 'accepted')).toBeUndefined()
    expect(interpretAnswer('revoke-token', 200, '{"ok":true}')).toStrictEqual({ ok: true })
  })
})

describe('an error answer', () => {
  it("names the service's code and message", () => {
    expect(failure(403, '{"code":"FORBIDDEN","error":"no scope"}')).toStrictEqual(
      httpError(403, 'HTTP 403 FORBIDDEN: no scope', {
        code: 'FORBIDDEN',
        serviceMessage: 'no scope'
      })
    )
    expect(failure(403, '{"error":"no scope"}').message).toBe('HTTP 403: no scope')
    expect(failure(403, '{"code":"FORBIDDEN"}').message).toBe('HTTP 403 FORBIDDEN')
  })

  it('ignores a code or message that is not a string, and a JSON body of another shape', () => {
    expect(failure(500, '{"code":7,"error":{"m":1}}')).toStrictEqual(httpError(500, 'HTTP 500'))
    expect(failure(500, 'null')).toStrictEqual(httpError(500, 'HTTP 500'))
    expect(failure(500, '"oops"')).toStrictEqual(httpError(500, 'HTTP 500'))
  })

  it('cuts the code at 40 characters and the message at 300', () => {
    // Words, not one long run, which would be hidden as credential-shaped.
    const words = (length: number) => 'ab '.repeat(length).slice(0, length - 1) + 'c'
    const cut = failure(400, JSON.stringify({ code: words(41), error: words(301) }))
    expect([cut.code, cut.serviceMessage]).toStrictEqual([
      `${words(41).slice(0, 37)}...`,
      `${words(301).slice(0, 297)}...`
    ])
    const whole = failure(400, JSON.stringify({ code: words(40), error: words(300) }))
    expect([whole.code, whole.serviceMessage]).toStrictEqual([words(40), words(300)])
  })

  it('shows a body that is not JSON only when it is at most 120 characters', () => {
    const body = `${'xy '.repeat(39)}xyz` // 120 characters
    expect(failure(502, ` ${body}  `).message).toBe(`HTTP 502 (body: ${body})`)
    expect(failure(502, `${body}z`).message).toBe('HTTP 502 (121 bytes, not shown)')
    expect(failure(502, ' é'.repeat(61)).message).toBe('HTTP 502 (183 bytes, not shown)')
    expect(failure(502, ' \n ').message).toBe('HTTP 502 (empty body)')
  })
})

describe('how long the service asks to wait', () => {
  const wait = (text: string, header?: string | string[]) =>
    failure(429, text, header).retryAfterSeconds
  it.each([
    ['{"retry_after":7}', 7],
    ['{"retry_after":0}', 0],
    ['{"retry_after":1.2}', 2],
    ['{"retry_after":"30"}', 30],
    ['{"retry_after":" 30 "}', 30],
    ['{"retry_after":-1}', undefined],
    ['{"retry_after":"-1"}', undefined],
    ['{"retry_after":"1.5"}', undefined],
    ['{"retry_after":"3s"}', undefined],
    ['{"retry_after":"x3"}', undefined],
    ['{"retry_after":true}', undefined],
    ['{}', undefined]
  ])('reads %s as %j', (text, seconds) => {
    expect(wait(text)).toBe(seconds)
  })

  it('prefers the body to the Retry-After header', () => {
    expect(wait('{"retry_after":7}', '20')).toBe(7)
    expect(wait('{"retry_after":"x"}', '20')).toBe(20)
  })

  it.each([
    [' 12 ', 12],
    [['5', '9'], 5],
    ['Mon, 23 Nov 2026 10:00:30 GMT', 30],
    ['Mon, 23 Nov 2026 10:00:29 GMT', 29],
    ['  mon, 23 Nov 2026 10:01:00 GMT', 60],
    ['Mon, 23 Nov 2026 09:59:00 GMT', 0],
    ['Sun, 99 Foo 2026', undefined],
    // An HTTP date starts with the day's 3-letter name; other date forms are not read.
    ['23 Nov 2026 10:00:30 GMT', undefined],
    ['Mo, 23 Nov 2026 10:00:30 GMT', undefined],
    ['12abc', undefined],
    [[], undefined]
  ])('reads the header %j as %j', (header, seconds) => {
    expect(wait('{}', header)).toBe(seconds)
  })

  it('rounds a date a fraction of a second away up to a whole second', () => {
    const at = new Date(NOW + 1500).toUTCString() // HTTP dates have whole seconds: NOW + 1 s
    expect(wait('{}', at)).toBe(1)
    // 1.999 s away, at a clock 1 ms past the second: still a 2-second wait.
    expect(() =>
      interpretAnswer('credential-provision', 429, '{}', 'Mon, 23 Nov 2026 10:00:02 GMT', NOW + 1)
    ).toThrow(expect.objectContaining({ retryAfterSeconds: 2 }))
  })
})
