/**
 * The proof that each public URL reaches this tunnel (`prove-url`): main asks every URL, from the
 * runner, for PROOF_PATH_PREFIX and a fresh nonce, and only this run's keeper, which holds the
 * proofKey, can answer with proofAnswer(). An edge that answers for any name, a 404 page, or a
 * server that echoes what it is sent cannot pass. Sent like the service's requests (the same
 * HTTP client, so https_proxy and no_proxy apply), and with no key or secret of any kind.
 * Main hands the keeper every nonce it will ask, with the host of each URL (planProof), and the
 * keeper answers only those, once each, and only when the request reached that host: a server
 * at a wrong URL that relays main's request to the real one cannot pass either.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { LookupFunction } from 'node:net'
import { Agent, type RequestOptions } from 'node:http'
import { HttpClient } from '@actions/http-client'
import type { RequestHandler } from '@actions/http-client/lib/interfaces'
import { networkDetail, unbracketIpv6Host } from '../../service/client.js'
import { trustCa } from '../../service/extra-ca.js'
import { cleanText, printable } from '../../text/printable.js'
import { quote } from '../../text/quote.js'
import { ACTION_NAME, ACTION_VERSION } from '../../version.js'
import { withoutTrailingSlash } from './gate-secret.js'
import {
  PROOF_ATTEMPT_TIMEOUT_MS,
  PROOF_PATH_PREFIX,
  PROOF_WINDOW_MS,
  proofAnswer,
  type ProofRequest
} from '../protocol.js'

export interface ProofOptions {
  proofKey: string
  /** The public URLs by entry name, as the `urls` output gives them. */
  urls: Record<string, string>
  /** Each entry's nonces, one per try, in order (planProof); made here when absent. */
  requests?: readonly ProofRequest[]
  now: () => number
  sleep: (ms: number) => Promise<void>
  /** PEM certificates trusted besides Node's own (ca-file). */
  ca?: string
  /** Each try's limit; default 10 s. */
  attemptTimeoutMs?: number
  /** Pauses between tries (DNS and an edge may need a moment for a new name); default 1, 2, 4, 4, 4 s. */
  pauses?: readonly number[]
  /** No new try starts after this long; default 20 s. */
  windowMs?: number
}

/** What came back instead of the proof. */
export type ProofAnswer =
  | { kind: 'answer'; status: number; server?: string; location?: string; body: Buffer }
  | { kind: 'network'; detail: string }
  | { kind: 'timeout'; ms: number }

/** An entry whose URL did not prove: the URL last asked, and what answered it. */
export interface ProofFailure {
  entry: string
  asked: string
  answer: ProofAnswer
}

const DEFAULT_PAUSES = [1_000, 2_000, 4_000, 4_000, 4_000]
// Enough of a body to see what answered; the proof itself is 64 hex characters.
const BODY_READ_BYTES = 1024
const BODY_SHOWN_CHARACTERS = 100

/**
 * The requests the proof of `urls` may make: one per try and entry, each with its own nonce,
 * and the host its URL names. Made before the keeper is configured, which is told them all.
 */
export function planProof(
  urls: Record<string, string>,
  pauses: readonly number[] = DEFAULT_PAUSES
): ProofRequest[] {
  return Object.entries(urls).flatMap(([entry, url]) => {
    const { host, protocol } = new URL(url)
    const defaultPort = protocol === 'https:' ? 443 : 80
    return Array.from({ length: pauses.length + 1 }, () => ({
      entry,
      nonce: randomBytes(16).toString('hex'),
      host,
      defaultPort
    }))
  })
}

/** Proves every URL at once; the failures in the order of `urls`, empty when all are proven. */
export async function proveUrls(options: ProofOptions): Promise<ProofFailure[]> {
  const requests = options.requests ?? planProof(options.urls, options.pauses)
  const results = await Promise.all(
    Object.entries(options.urls).map(([entry, url]) =>
      proveOne(
        entry,
        url,
        requests.filter(request => request.entry === entry).map(request => request.nonce),
        options
      )
    )
  )
  return results.filter((failure): failure is ProofFailure => failure !== undefined)
}

async function proveOne(
  entry: string,
  url: string,
  nonces: readonly string[],
  options: ProofOptions
): Promise<ProofFailure | undefined> {
  const pauses = options.pauses ?? DEFAULT_PAUSES
  const windowMs = options.windowMs ?? PROOF_WINDOW_MS
  const started = options.now()
  for (let attempt = 0; ; attempt++) {
    // Only a nonce the keeper was told is answered: one per try, never one used before.
    const nonce = nonces[attempt]
    const asked = `${withoutTrailingSlash(url)}${PROOF_PATH_PREFIX}${nonce}`
    const answer = await ask(
      asked,
      options.attemptTimeoutMs ?? PROOF_ATTEMPT_TIMEOUT_MS,
      options.ca
    )
    if (proves(answer, proofAnswer(options.proofKey, entry, nonce))) return undefined
    const pause = pauses[attempt]
    const late = options.now() - started + (pause ?? 0) >= windowMs
    const noNonce = nonces[attempt + 1] === undefined
    if (!mayStillCome(answer) || pause === undefined || late || noNonce) {
      return { entry, asked, answer }
    }
    await options.sleep(pause)
  }
}

/** 200 with exactly the expected answer, compared in constant time. */
function proves(answer: ProofAnswer, expected: string): boolean {
  if (answer.kind !== 'answer' || answer.status !== 200) return false
  const wanted = Buffer.from(expected)
  return answer.body.length === wanted.length && timingSafeEqual(answer.body, wanted)
}

/**
 * Answers a new name can give for a moment: no route or no DNS yet, an edge still warming up.
 * Any other answer (a page of someone else's, a redirect) will not change by asking again.
 */
function mayStillCome(answer: ProofAnswer): boolean {
  if (answer.kind !== 'answer') return true
  const { status } = answer
  return status >= 500 || [404, 408, 421, 425, 429].includes(status)
}

/** One GET with a deadline over the whole exchange; a client per try, disposed after it. */
async function ask(url: string, timeoutMs: number, ca?: string): Promise<ProofAnswer> {
  const http = new HttpClient(
    `${ACTION_NAME}/${ACTION_VERSION}`,
    [unbracketIpv6Host, loopbackNames, ...(ca ? [trustCa(ca)] : [])],
    {
      socketTimeout: timeoutMs,
      // A redirect is an answer of its own: the URL reaches something else first.
      allowRedirects: false,
      allowRetries: false
    }
  )
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<ProofAnswer>(resolve => {
    timer = setTimeout(() => resolve({ kind: 'timeout', ms: timeoutMs }), timeoutMs)
  })
  try {
    return await Promise.race([exchange(http, url), deadline])
  } finally {
    clearTimeout(timer)
    http.dispose()
  }
}

async function exchange(http: HttpClient, url: string): Promise<ProofAnswer> {
  try {
    const response = await http.get(url, { Accept: 'text/plain' })
    const { statusCode, headers } = response.message
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of response.message) {
      chunks.push(chunk as Buffer)
      size += (chunk as Buffer).length
      if (size >= BODY_READ_BYTES) break
    }
    response.message.destroy()
    const header = (value: unknown) => (typeof value === 'string' ? value : undefined)
    return {
      kind: 'answer',
      status: statusCode ?? 0,
      server: header(headers.server),
      location: header(headers.location),
      body: Buffer.concat(chunks).subarray(0, BODY_READ_BYTES)
    }
  } catch (error) {
    return { kind: 'network', detail: networkDetail(error) }
  }
}

/**
 * Names under `.localhost` are the loopback (RFC 6761), as browsers and curl treat them; the
 * system resolver often does not. Only for a direct request: a proxy resolves names itself.
 */
const loopbackNames: RequestHandler = {
  prepareRequest(options: RequestOptions) {
    if (/\.localhost\.?$/i.test(options.host ?? '') && options.agent instanceof Agent) {
      options.lookup = loopback
    }
  },
  canHandleAuthentication: () => false,
  handleAuthentication: () => Promise.reject(new Error('not used'))
}

const loopback = ((
  _name: string,
  options: { all?: boolean },
  callback: (...result: unknown[]) => void
) => {
  if (options.all === true) callback(null, [{ address: '127.0.0.1', family: 4 }])
  else callback(null, '127.0.0.1', 4)
}) as unknown as LookupFunction

/** What answered instead of the proof, in words, every outside part made printable. */
export function describeAnswer(answer: ProofAnswer): string {
  if (answer.kind === 'timeout') return `no answer within ${Math.round(answer.ms / 1000)} s`
  if (answer.kind === 'network') return `no answer (${answer.detail})`
  const server = answer.server === undefined ? '' : `, Server: ${cleanText(answer.server, 60)}`
  const location =
    answer.location === undefined ? '' : `, Location: ${cleanText(answer.location, 120)}`
  const text = cleanText(answer.body.toString('utf8'), BODY_SHOWN_CHARACTERS)
  const body = text === '' ? 'an empty body' : `the body "${text}"`
  return `status ${answer.status}${server}${location} with ${body}`
}

/**
 * The step's one failure for URLs that did not prove: the first in `expose` order in full (the
 * URL asked is made here, but its host comes from outside), and the names of any others.
 */
export function proofFailureMessage(
  failures: ProofFailure[],
  template: string,
  label: (name: string) => string
): string {
  const [first, ...others] = failures
  const more =
    others.length === 0
      ? ''
      : ` The URLs of ${others.map(f => `"${f.entry}"`).join(', ')} did not reach it either.`
  return (
    `The public URL of "${first.entry}" does not reach this tunnel: GET ${printable(first.asked, 300)} got ${describeAnswer(first.answer)}, ` +
    `not the tunnel's own answer.${more} Check ${label('url-template')} (${quote(template, 120)}): it must form the address at which your tunnel server serves each forward. ` +
    `On a runner that cannot reach its own public URL, set ${label('prove-url')} to false to skip this proof.`
  )
}
