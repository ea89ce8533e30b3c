/** The request log, the gate and the URL proof, as read from their options before any request. */
import { readMainSettings } from '../../../src/core/assembly/read-main.js'
import { ExplainedError } from '../../../src/core/errors.js'
import { optionDefault } from '../../../src/core/options/option-facts.js'
import {
  DEFAULT_REQUEST_HANDLING,
  readRequestHandlingSettings
} from '../../../src/core/settings/request-handling.js'
import { optionsFrom as reader } from '../../helpers/options.js'

describe('readRequestHandlingSettings', () => {
  it("gives the table's defaults for empty options: a log without bodies, redacted, no gate, the proof on", () => {
    const read = readRequestHandlingSettings(reader({}))
    expect(read).toEqual(DEFAULT_REQUEST_HANDLING)
    expect(read).toEqual({
      requestLog: {
        enabled: optionDefault('log-requests') === 'true',
        bodyBytes: Number(optionDefault('log-bodies')),
        headers: optionDefault('log-headers')
      },
      protect: optionDefault('protect') === 'true',
      proveUrl: optionDefault('prove-url') === 'true'
    })
    expect(read).toEqual({
      requestLog: { enabled: true, bodyBytes: 0, headers: 'redacted' },
      protect: false,
      proveUrl: true
    })
  })

  it('reads every option, in any case', () => {
    expect(
      readRequestHandlingSettings(
        reader({
          'log-requests': 'FALSE',
          'log-bodies': ' 4096 ',
          'log-headers': 'Unredacted',
          protect: 'true',
          'prove-url': 'false'
        })
      )
    ).toEqual({
      requestLog: { enabled: false, bodyBytes: 4096, headers: 'unredacted' },
      protect: true,
      proveUrl: false
    })
  })

  it('reads log-headers without the blanks around it', () => {
    expect(
      readRequestHandlingSettings(reader({ 'log-headers': ' unredacted\t' })).requestLog.headers
    ).toBe('unredacted')
    expect(readRequestHandlingSettings(reader({ 'log-headers': '  ' })).requestLog.headers).toBe(
      'redacted'
    )
  })

  it.each([
    ['log-requests', 'yes'],
    ['log-bodies', '-1'],
    ['log-bodies', '1.5'],
    ['log-bodies', '1k'],
    ['log-bodies', String(64 * 1024 * 1024 + 1)],
    ['log-headers', 'none'],
    ['protect', 'on'],
    ['prove-url', '1']
  ])('refuses %s %s, naming the option', (name, value) => {
    let error: unknown
    try {
      readRequestHandlingSettings(reader({ [name]: value }))
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(ExplainedError)
    expect((error as Error).message.toLowerCase()).toContain(`input ${name}`)
  })

  it('land in the tunnel settings with expose, and are checked without it too', () => {
    const base = { credential: 'free', 'base-url': 'https://svc.example.test' }
    const settings = readMainSettings(
      reader({ ...base, expose: '3000', protect: 'true', 'log-bodies': '100' })
    )
    expect(settings.tunnel).toMatchObject({
      requestLog: { enabled: true, bodyBytes: 100, headers: 'redacted' },
      protect: true,
      proveUrl: true
    })
    expect(readMainSettings(reader(base)).tunnel).toBeUndefined()
    expect(() => readMainSettings(reader({ ...base, 'log-headers': 'raw' }))).toThrow(
      ExplainedError
    )
  })
})
