/**
 * The HAR file before its entries: `{"log":{…,"entries":[`, written as text so that the entries
 * can be streamed after it (the closing text, with the tunnel's own answers, is tunnel-answers.ts). It says how many bodies and entries the size cap
 * dropped, in the log's comment (what DevTools show) and in `_dropped` (for tools).
 */

export interface DropCounts {
  bodies: number
  entries: number
}

export function harEnvelope(creatorVersion: string, maxBytes: number, dropped: DropCounts): string {
  const log = {
    version: '1.2',
    creator: { name: 'tunnel-credentials', version: creatorVersion },
    comment:
      'Requests through the tunnel, redacted as the log-headers and log-bodies options say. ' +
      `To stay under ${maxBytes} bytes, ${dropped.bodies} bodies and ${dropped.entries} ` +
      'entries were dropped, oldest first.',
    _dropped: { bodies: dropped.bodies, entries: dropped.entries },
    _maxBytes: maxBytes
  }
  const head = JSON.stringify({ log })
  // `head` ends with `}}`: the entries go in before them.
  return `${head.slice(0, -2)},"entries":[\n`
}

/** The text's bytes with room for any count of drops to come. */
export function envelopeBytes(creatorVersion: string, maxBytes: number): number {
  const widest = Number.MAX_SAFE_INTEGER
  return Buffer.byteLength(
    harEnvelope(creatorVersion, maxBytes, { bodies: widest, entries: widest })
  )
}
