/**
 * The keeper's side of the URL proof (`prove-url`): main asks each entry's public URL for
 * PROOF_PATH_PREFIX + nonce, and the keeper answers it itself, without the app, with a keyed
 * answer only this process can compute. Only main's own requests are answered: main hands over
 * every nonce it may ask, with the host it sends each to (ProofRequest), and each is answered
 * once, only while main proves, and only when the request reached that host. A relay at another
 * URL that passes main's request on to the real one reaches the real host, not the one main
 * asked, so it cannot pass for this tunnel. Any other request to the path is an ordinary one:
 * the gate's and the app's. A url-template may put a path before the prefix, so the last
 * occurrence counts. Answered before the gate: main holds no gate form when it asks.
 */
import { PROOF_PATH_PREFIX, proofAnswer, type ProofRequest } from '../../protocol.js'
import type { RequestDecision, RequestHead } from './hooks.js'

export class ExpectedProofs {
  /** Main's requests not yet seen, by nonce. */
  private readonly waiting = new Map<string, ProofRequest>()
  /** No proof is answered from this time on (set at ready); Infinity until then. */
  private until = Infinity

  constructor(
    private readonly proofKey: string,
    requests: readonly ProofRequest[],
    private readonly now: () => number
  ) {
    for (const request of requests) this.waiting.set(request.nonce, request)
  }

  /** Main is told the tunnel is ready: it proves now, and the nonces last `keptMs` at most. */
  startClock(keptMs: number): void {
    this.until = this.now() + keptMs
  }

  /** Main has its answers (or left): nothing more is answered. */
  end(): void {
    this.waiting.clear()
  }

  /** No nonce is left to answer. */
  get over(): boolean {
    if (this.waiting.size > 0 && this.now() >= this.until) this.end()
    return this.waiting.size === 0
  }

  /**
   * The keyed answer to one of main's proof requests; undefined for any other request, which
   * goes on as an ordinary one. A nonce is spent by the first request that names it, answered
   * or not: a relay that was refused cannot try it again with other headers.
   */
  answer(request: RequestHead): RequestDecision | undefined {
    if (this.over) return undefined
    const nonce = nonceIn(request.target)
    const expected = nonce === undefined ? undefined : this.waiting.get(nonce)
    if (expected === undefined || expected.entry !== request.entry) return undefined
    this.waiting.delete(expected.nonce)
    if (!reachedHost(request.headers, expected)) return undefined
    return {
      answer: {
        status: 200,
        headers: [
          ['Content-Type', 'text/plain; charset=utf-8'],
          ['Cache-Control', 'no-store']
        ],
        body: proofAnswer(this.proofKey, request.entry, expected.nonce)
      },
      outcome: 'proof'
    }
  }
}

/** What follows the last PROOF_PATH_PREFIX in the path; undefined when it is not there. */
function nonceIn(target: string): string | undefined {
  const query = target.indexOf('?')
  const path = query < 0 ? target : target.slice(0, query)
  const at = path.lastIndexOf(PROOF_PATH_PREFIX)
  return at < 0 ? undefined : path.slice(at + PROOF_PATH_PREFIX.length)
}

/**
 * Whether the request reached the host main sent it to: `X-Forwarded-Host` where the edge sets
 * it (its last value: the one the edge nearest to us added), `Host` otherwise. Names compare
 * without case and without a trailing dot; a port the scheme implies may be written or not.
 */
export function reachedHost(headers: [string, string][], expected: ProofRequest): boolean {
  const forwarded = headers.filter(([name]) => name.toLowerCase() === 'x-forwarded-host')
  const fields =
    forwarded.length > 0 ? forwarded : headers.filter(([name]) => name.toLowerCase() === 'host')
  const last = fields.at(-1)?.[1].split(',').at(-1)?.trim()
  if (last === undefined || last === '') return false
  return sameHost(last, expected.host, expected.defaultPort)
}

function sameHost(seen: string, asked: string, defaultPort: number): boolean {
  const normal = (host: string) => {
    const match = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(host.toLowerCase())
    if (match === null) return undefined
    const name = match[1].replace(/\.$/, '')
    const port = match[2] === undefined || match[2] === '' ? defaultPort : Number(match[2])
    return `${name}:${port}`
  }
  const wanted = normal(asked)
  return wanted !== undefined && normal(seen) === wanted
}
