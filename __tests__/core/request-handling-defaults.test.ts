/**
 * The defaults of the request log, the gate and the URL proof are written once
 * (src/core/options/request-handling-defaults.ts): changed there, the options' table (and so
 * action.yml's test, the component's and the README), main's empty options and the keeper's
 * missing fields all follow. The module is replaced here with every default turned over.
 */
import { jest } from '@jest/globals'
import { optionsFrom } from '../helpers/options.js'

const TURNED_OVER = {
  logRequests: false,
  logBodies: 512,
  logHeaders: 'unredacted',
  protect: true,
  proveUrl: false
} as const

jest.unstable_mockModule('../../src/core/options/request-handling-defaults.js', () => ({
  REQUEST_HANDLING_DEFAULTS: TURNED_OVER
}))

const { optionDefault } = await import('../../src/core/options/option-facts.js')
const { readRequestHandlingSettings } = await import('../../src/core/settings/request-handling.js')
const protocol = await import('../../src/core/tunnel/protocol.js')
const { RequestLogSink } = await import('../../src/core/tunnel/keeper/request-log-sink.js')

describe('the defaults of what the tunnel does with requests, written once', () => {
  it("are the options' table's defaults", () => {
    expect(
      ['log-requests', 'log-bodies', 'log-headers', 'protect', 'prove-url'].map(optionDefault)
    ).toEqual(['false', '512', 'unredacted', 'true', 'false'])
  })

  it('are what empty options give main', () => {
    expect(readRequestHandlingSettings(optionsFrom({}))).toEqual({
      requestLog: { enabled: false, bodyBytes: 512, headers: 'unredacted' },
      protect: true,
      proveUrl: false
    })
  })

  it('are what the keeper takes for a field its configuration lacks', () => {
    expect([
      protocol.DEFAULT_REQUEST_LOG,
      protocol.DEFAULT_PROTECT,
      protocol.DEFAULT_PROVE_URL
    ]).toEqual([{ enabled: false, bodyBytes: 512, headers: 'unredacted' }, true, false])
    const files = { harPath: '/nowhere/requests.har' } as never
    const config = { requestLogFiles: files } as unknown as Parameters<
      typeof RequestLogSink.wanted
    >[0]
    // No log: the turned-over default, where the keeper used to write `true` by hand.
    expect(RequestLogSink.wanted(config)).toBe(false)
    expect(
      RequestLogSink.wanted({
        ...config,
        requestLog: { enabled: true, bodyBytes: 0, headers: 'redacted' }
      })
    ).toBe(true)
  })
})
