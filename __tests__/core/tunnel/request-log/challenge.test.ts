/**
 * What the counts say about a gate's 401: a challenge when the client sent the same request with
 * the secret within 10 s (same connection, or same client address), a refusal otherwise.
 */
import type { RequestRecord } from '../../../../src/core/tunnel/request-log/record.js'
import { RequestTally } from '../../../../src/core/tunnel/request-log/tally.js'
import { aRecord } from './records.js'

const T0 = Date.UTC(2026, 10, 28, 3, 0, 0)

const refused = (overrides: Partial<RequestRecord> = {}) =>
  aRecord({
    startedAt: T0,
    status: 401,
    outcome: 'refused',
    tunnelAnswered: true,
    client: '198.51.100.4:40001',
    connection: 1,
    ...overrides
  })
const admitted = (overrides: Partial<RequestRecord> = {}) =>
  aRecord({
    startedAt: T0 + 300,
    status: 200,
    client: '198.51.100.4:40002',
    connection: 2,
    ...overrides
  })

function counts(records: RequestRecord[]) {
  const tally = new RequestTally()
  for (const record of records) tally.add(record)
  return tally.toJSON().byClass
}

it('counts a 401 answered from the same client address within 10 s as challenged', () => {
  expect(counts([refused(), admitted()])).toEqual({ '2xx': 1, challenged: 1 })
  expect(counts([refused(), admitted({ startedAt: T0 + 10_000 })])).toEqual({
    '2xx': 1,
    challenged: 1
  })
})

it("counts one answered by the gate's own redirect that lets a browser in as challenged", () => {
  expect(counts([refused(), admitted({ status: 303, outcome: 'admitted' })])).toEqual({
    '3xx': 1,
    challenged: 1
  })
})

it('counts one answered on the same connection, from any address, as challenged', () => {
  expect(counts([refused(), admitted({ connection: 1, client: '192.0.2.9:1' })])).toEqual({
    '2xx': 1,
    challenged: 1
  })
})

it('keeps a refusal when the retry comes late, for another path or method, or from elsewhere', () => {
  const refusedOnly = { '2xx': 1, refused: 1 }
  expect(counts([refused(), admitted({ startedAt: T0 + 10_001 })])).toEqual(refusedOnly)
  expect(counts([refused(), admitted({ target: '/other' })])).toEqual(refusedOnly)
  expect(counts([refused(), admitted({ method: 'POST' })])).toEqual(refusedOnly)
  expect(counts([refused(), admitted({ client: '198.51.100.5:40002' })])).toEqual(refusedOnly)
  // One retry answers one challenge: a second 401 for the same path stays a refusal.
  expect(counts([refused(), refused({ connection: 3 }), admitted()])).toEqual({
    '2xx': 1,
    challenged: 1,
    refused: 1
  })
})

it('matches IPv6 clients by address, whatever their port', () => {
  expect(
    counts([refused({ client: '[2001:db8::1]:5000' }), admitted({ client: '[2001:db8::1]:5001' })])
  ).toEqual({ '2xx': 1, challenged: 1 })
})
