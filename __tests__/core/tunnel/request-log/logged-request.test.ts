/**
 * What one record becomes in the log, without any file: the redacted record the tally counts,
 * and the HAR entry's lines, whole and without bodies.
 */
import { loggedRequest } from '../../../../src/core/tunnel/request-log/logged-request.js'
import { makeRedactor } from '../../../../src/core/tunnel/request-log/redact.js'
import { aRecord, publicBaseUrl } from './records.js'

const SECRET = 'gate-secret-0123456789abcdef'

describe('a logged request', () => {
  it('is redacted before the entry is made, in the record and in both lines', () => {
    const redact = makeRedactor({ headers: 'redacted', logBodies: true, secrets: [SECRET] })
    const logged = loggedRequest(
      aRecord({
        target: `/_tunnel-gate/${SECRET}/hook?token=qv-7731`,
        requestHeaders: [
          ['Authorization', 'Bearer app-token'],
          ['X-Real-Ip', '198.51.100.23']
        ],
        requestBody: Buffer.from(`{"secret":"${SECRET}"}`),
        responseBody: Buffer.from('ok'),
        bodyTruncated: { request: false, response: false }
      }),
      redact,
      publicBaseUrl
    )
    for (const text of [logged.line, logged.bareLine, JSON.stringify(logged.record)]) {
      expect(text).not.toContain(SECRET)
      expect(text).not.toContain('app-token')
      expect(text).not.toContain('qv-7731')
    }
    expect(logged.record.edgeReportedClient).toBe('198.51.100.23')
    const entry = JSON.parse(logged.line)
    expect(entry.request.url).toBe(
      'https://web-abc.tunnel.example/_tunnel-gate/REDACTED/hook?token=REDACTED'
    )
    expect(entry._edgeReportedClient).toBe('198.51.100.23')
    expect(entry.request.postData.text).toBe('{"secret":"REDACTED"}')
    const bare = JSON.parse(logged.bareLine)
    expect(bare.request.postData.text).toBe('')
    expect(bare.response.content.text).toBeUndefined()
  })

  it('keeps one line when the entry has no body, and no edge client a record claims itself', () => {
    const redact = makeRedactor({ headers: 'unredacted', logBodies: false, secrets: [] })
    const logged = loggedRequest(
      aRecord({ edgeReportedClient: '192.0.2.1' }),
      redact,
      publicBaseUrl
    )
    expect(logged.bareLine).toBe(logged.line)
    expect(logged.record.edgeReportedClient).toBeUndefined()
    expect(JSON.parse(logged.line)._edgeReportedClient).toBeUndefined()
  })
})
