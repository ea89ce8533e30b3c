/**
 * `replay FILE.har --to URL`: the recorded requests sent again to an app, in the file's order,
 * each printed beside the status it first got. It needs no key, no service and no masking, so it
 * starts none of the other commands' machinery (context.ts). Everything it prints of the HAR
 * goes through printable(): a HAR is outside text, and its paths reach a CI log.
 */
import { readFileSync, statSync } from 'node:fs'
import { printable, printablePath } from '../../core/text/printable.js'
import { UsageError } from '../arguments.js'
import { HarError, readHar, type HarRequest } from '../har-read.js'
import type { Terminal } from '../host.js'
import { parseReplayArguments, type ReplayArguments } from '../replay-arguments.js'
import { sendRequest, type OutgoingRequest } from '../replay-send.js'

const MAX_HAR_BYTES = 512 * 1024 * 1024

// Headers that belong to one connection, not to the request (RFC 9110 7.6.1), and the length,
// which is set from the body actually sent.
const NOT_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length'
])
const REDACTED = 'REDACTED'

// What the tunnel did instead of forwarding: these requests never reached the app.
const TUNNEL_OUTCOMES: Record<string, string> = {
  refused: "refused by the tunnel's gate",
  admitted: "the gate's own redirect that sets its cookie",
  unreachable: 'the app was not listening',
  'not-http': 'not HTTP',
  proof: "the tunnel's own proof of the URL"
}

/** Said once after the total when some requests went out without their redacted parts. */
const REDACTED_NOTE =
  'Sent redacted: the app did not get these requests as recorded (a signature over the URL or a ' +
  'header cannot match); record with log-headers: unredacted to replay them whole.'

/** `args`: the words after `replay`. Throws UsageError for a usage error (exit 2). */
export async function replayCommand(args: string[], terminal: Terminal): Promise<number> {
  const options = parseReplayArguments(args)
  const all = loadHar(options.harFile)
  const selected = select(all, options)
  const file = printablePath(options.harFile)
  if (all.length === 0) return (terminal.stdout(`${file} holds no requests.`), 0)
  if (selected.length === 0) {
    terminal.stderr(
      `Error: none of the ${all.length} requests in ${file} matches --index, --method and --path.`
    )
    return 1
  }
  terminal.stdout(
    `Replaying ${selected.length} of ${all.length} requests from ${file} to ${printable(options.to.href)}`
  )
  const counts = { ok: 0, redacted: 0, diff: 0, skipped: 0, notReplayed: 0 }
  for (const recorded of selected) {
    const head = `#${recorded.index} ${printable(recorded.method || '-', 20)} ${printable(recorded.target || '-')}`
    if (recorded.tunnelOutcome !== undefined) {
      counts.skipped++
      terminal.stdout(`${head}  skipped: ${skipReason(recorded)}, it never reached the app`)
      continue
    }
    const { outgoing, withheld, sentRedacted } = outgoingFor(recorded, options.to)
    const cannot = whyNotReplayable(recorded, outgoing.target)
    if (cannot !== undefined) {
      counts.notReplayed++
      terminal.stdout(`${head}  NOT REPLAYED: ${cannot}`)
      continue
    }
    const result = await sendRequest(options.to, outgoing, options.timeoutMs)
    if (result.type === 'refused') {
      terminal.stderr(
        `Error: nothing accepts connections at ${printable(options.to.host)} (--to): start the app, or give its address with --to.`
      )
      return 1
    }
    if (result.type === 'unsendable') {
      counts.notReplayed++
      terminal.stdout(`${head}  NOT REPLAYED: Node cannot send it as recorded (${result.cause})`)
      continue
    }
    const replayed = result.type === 'answered' ? result.status : 0
    const same = statusClass(replayed) === statusClass(recorded.status ?? 0)
    // Without its redacted parts the request is not the one recorded: a match is not an OK.
    const redacted = withheld.length > 0 || sentRedacted.length > 0
    const verdict = !same ? 'diff' : redacted ? 'redacted' : 'ok'
    counts[verdict]++
    const shown = result.type === 'answered' ? String(result.status) : `no answer (${result.cause})`
    const notes = [
      ...(withheld.length > 0 ? [`not sent, redacted: ${withheld.join(', ')}`] : []),
      ...(sentRedacted.length > 0 ? [`sent with REDACTED in it: ${sentRedacted.join(', ')}`] : [])
    ]
    const note = notes.length > 0 ? `  (${printable(notes.join('; '))})` : ''
    const word = { ok: 'OK', redacted: 'SENT REDACTED', diff: 'DIFF' }[verdict]
    terminal.stdout(`${head}  ${recorded.status || '-'} -> ${shown}  ${word}${note}`)
  }
  return report(terminal, counts)
}

/** Why a request the tunnel answered itself is skipped; an outcome this version does not know is named. */
function skipReason(recorded: HarRequest): string {
  const outcome = recorded.tunnelOutcome ?? ''
  if (Object.hasOwn(TUNNEL_OUTCOMES, outcome)) return TUNNEL_OUTCOMES[outcome]
  return `the tunnel's own answer (${printable(outcome, 20)})`
}

function report(
  terminal: Terminal,
  counts: { ok: number; redacted: number; diff: number; skipped: number; notReplayed: number }
): number {
  const { ok, redacted, diff, skipped, notReplayed } = counts
  terminal.stdout(
    `Replayed ${ok + redacted + diff}: ${ok} OK, ${redacted} sent redacted, ${diff} DIFF; ${notReplayed} not replayed; ${skipped} skipped (never reached the app).`
  )
  if (redacted > 0) terminal.stdout(REDACTED_NOTE)
  if (diff === 0 && notReplayed === 0) return 0
  const parts = [
    ...(diff > 0 ? [`${diff} got another status class than recorded`] : []),
    ...(notReplayed > 0 ? [`${notReplayed} could not be replayed as recorded`] : [])
  ]
  terminal.stderr(`Error: ${parts.join(' and ')}; see the DIFF and NOT REPLAYED lines above.`)
  return 1
}

function loadHar(path: string): HarRequest[] {
  const shown = printablePath(path)
  let text: string
  try {
    if (statSync(path).size > MAX_HAR_BYTES)
      throw new UsageError(`${shown} is larger than 512 MiB.`)
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if (error instanceof UsageError) throw error
    const code = (error as { code?: unknown }).code
    throw new UsageError(
      `${shown} cannot be read (${typeof code === 'string' ? code : 'error'}): name a HAR file.`
    )
  }
  try {
    return readHar(text)
  } catch (error) {
    if (!(error instanceof HarError)) throw error
    throw new UsageError(`${shown} ${error.message}.`)
  }
}

function select(all: HarRequest[], options: ReplayArguments): HarRequest[] {
  const past = [...(options.indexes ?? [])].find(index => index > all.length)
  if (past !== undefined) {
    throw new UsageError(`--index ${past} is past the last entry of the HAR (${all.length}).`)
  }
  return all.filter(
    request =>
      (options.indexes === undefined || options.indexes.has(request.index)) &&
      (options.methods === undefined || options.methods.has(request.method.toUpperCase())) &&
      (options.pathPrefix === undefined || request.target.startsWith(options.pathPrefix))
  )
}

/** Why the request cannot be sent as the app first got it; undefined when it can. */
function whyNotReplayable(recorded: HarRequest, target: string): string | undefined {
  if (recorded.body?.incomplete !== undefined) return recorded.body.incomplete
  // node:http sends GET for no method and upper-cases any other: the app would get another one.
  if (recorded.method === '') return 'it has no method'
  if (recorded.method !== recorded.method.toUpperCase()) {
    return 'its method is not in upper case, and Node sends methods only in upper case'
  }
  const upgrade = recorded.headers.some(([name]) => name.toLowerCase() === 'upgrade')
  if (upgrade || recorded.status === 101) return 'an Upgrade (WebSocket) handshake is not replayed'
  // Node writes a target's characters above 0x7f as single bytes: one a HAR holds as decoded
  // text (UTF-8, say) would reach the app as other bytes than it first got.
  if (!/^[\x21-\x7e]+$/.test(target)) {
    return 'its path holds characters outside printable ASCII, which cannot be sent as recorded'
  }
  return undefined
}

/**
 * The request to send: recorded headers but those of the connection, HTTP/2's pseudo-headers
 * and redacted ones (named in `withheld`), and redacted query parameters dropped; a header whose
 * value only holds a redacted part (a Referer's query) is sent as it is, named in `sentRedacted`. The recorded
 * Host is kept: the app got it first, may route or check signatures by it, and a replay should
 * reproduce what the app saw; a request recorded without one gets --to's.
 */
function outgoingFor(
  recorded: HarRequest,
  to: URL
): { outgoing: OutgoingRequest; withheld: string[]; sentRedacted: string[] } {
  const withheld: string[] = []
  const sentRedacted: string[] = []
  const connectionListed = new Set(
    recorded.headers
      .filter(([name]) => name.toLowerCase() === 'connection')
      .flatMap(([, value]) => value.split(',').map(option => option.trim().toLowerCase()))
  )
  const headers = recorded.headers.filter(([name, value]) => {
    const lower = name.toLowerCase()
    if (NOT_FORWARDED.has(lower) || lower.startsWith('proxy-') || lower.startsWith(':'))
      return false
    if (connectionListed.has(lower)) return false
    if (value === REDACTED) return (withheld.push(name), false)
    if (value.includes(REDACTED)) sentRedacted.push(name)
    return true
  })
  if (!headers.some(([name]) => name.toLowerCase() === 'host')) headers.unshift(['Host', to.host])
  const body = recorded.body?.bytes ?? Buffer.alloc(0)
  const hadLength = recorded.headers.some(([name]) =>
    ['content-length', 'transfer-encoding'].includes(name.toLowerCase())
  )
  // Without a length Node would send a POST chunked; the app first got a length or no body.
  if (body.length > 0 || hadLength || !/^(GET|HEAD|DELETE|OPTIONS|TRACE)$/i.test(recorded.method)) {
    headers.push(['Content-Length', String(body.length)])
  }
  const { target, dropped } = withoutRedactedQuery(recorded.target)
  withheld.push(...dropped.map(name => `query ${name}`))
  const prefix = to.pathname.replace(/\/$/, '')
  return {
    outgoing: {
      method: recorded.method,
      target: target === '*' && prefix !== '' ? prefix : `${prefix}${target}`,
      headers,
      body
    },
    withheld,
    sentRedacted
  }
}

function withoutRedactedQuery(target: string): { target: string; dropped: string[] } {
  const question = target.indexOf('?')
  if (question === -1) return { target, dropped: [] }
  const dropped: string[] = []
  const kept = target
    .slice(question + 1)
    .split('&')
    .filter(pair => {
      const equals = pair.indexOf('=')
      if (equals === -1 || pair.slice(equals + 1) !== REDACTED) return true
      return (dropped.push(pair.slice(0, equals)), false)
    })
  const path = target.slice(0, question)
  return { target: kept.length > 0 ? `${path}?${kept.join('&')}` : path, dropped }
}

/** 2 for 2xx; 0 for no status at all. */
function statusClass(status: number): number {
  return Math.floor(status / 100)
}
