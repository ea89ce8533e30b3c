/**
 * What one request record becomes in the log, as pure functions of the record: redacted first
 * (redact.ts), so nothing after sees what the policy hides; then given the address the edge
 * reported (edge-client.ts); then the HAR entry's line, and its line without bodies for when the
 * size cap must drop them. The tally counts the same redacted record (tally.ts). How the lines
 * reach the file is the HAR store's concern (har-store.ts), not this one's.
 */
import { edgeReportedClient } from './edge-client.js'
import { harEntryOf, holdsBody, withoutBodies, type PublicBaseUrl } from './har-entry.js'
import type { RequestRecord } from './record.js'
import type { Redactor } from './redact.js'

export interface LoggedRequest {
  /** The record as the log may keep it: redacted, with the edge's report of the client. */
  record: RequestRecord
  /** The HAR entry, as one line of JSON. */
  line: string
  /** The same entry without its bodies (equal to `line` when it has none). */
  bareLine: string
}

export function loggedRequest(
  record: RequestRecord,
  redact: Redactor,
  publicBaseUrl: PublicBaseUrl
): LoggedRequest {
  const redacted = withEdgeReportedClient(redact(record))
  const entry = harEntryOf(redacted, publicBaseUrl)
  const line = JSON.stringify(entry)
  return {
    record: redacted,
    line,
    bareLine: holdsBody(entry) ? JSON.stringify(withoutBodies(entry)) : line
  }
}

/** The record with the edge's report of the client, read from its (redacted) request fields. */
export function withEdgeReportedClient(record: RequestRecord): RequestRecord {
  const reported = edgeReportedClient(record.requestHeaders)
  if (reported === undefined) {
    const { edgeReportedClient: _ignored, ...rest } = record
    return rest
  }
  return { ...record, edgeReportedClient: reported }
}
