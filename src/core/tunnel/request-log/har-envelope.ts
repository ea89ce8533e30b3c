/**
 * The HAR file around its entries: `{"log":{…,"entries":[` and `]}}`, written as text so that
 * the entries can be streamed between them. It says how many bodies and entries the size cap
 * dropped, in the log's comment (what DevTools show) and in `_dropped` (for tools).
 */

export interface DropCounts {
  bodies: number
  entries: number
}

export interface HarEnvelope {
  prefix: string
  suffix: string
}

export function harEnvelope(
  creatorVersion: string,
  maxBytes: number,
  dropped: DropCounts
): HarEnvelope {
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
  return { prefix: `${head.slice(0, -2)},"entries":[\n`, suffix: '\n]}}\n' }
}

/** The envelope's bytes with room for any count of drops to come. */
export function envelopeBytes(creatorVersion: string, maxBytes: number): number {
  const widest = Number.MAX_SAFE_INTEGER
  const { prefix, suffix } = harEnvelope(creatorVersion, maxBytes, {
    bodies: widest,
    entries: widest
  })
  return Buffer.byteLength(prefix) + Buffer.byteLength(suffix)
}
