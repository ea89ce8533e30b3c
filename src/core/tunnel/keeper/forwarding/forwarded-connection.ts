/**
 * One connection the tunnel server opened on a forward, handed to a handler for its protocol:
 * the raw pipe (raw-pipe.ts) when nothing needs to read HTTP (no request log, gate or proof),
 * or else, when its first bytes are an HTTP/1.x request line, the HTTP layer (http/*).
 */
import { connect as connectTcp, type Socket } from 'node:net'
import type { ClientChannel, TcpConnectionDetails } from 'ssh2'
import type { ExposeEntry } from '../../protocol.js'
import type { ForwardContext } from './forward-context.js'
import { clientAddress } from '../http/hooks.js'
import { MAX_HEAD_BYTES } from '../http/framing.js'
import { HttpConnection } from '../http/http-connection.js'
import { serializeAnswer, unreachableAnswer } from '../http/own-answers.js'
import { sniffRequestLine, type Sniffed } from '../http/sniff.js'
import { pipeRaw } from './raw-pipe.js'

export function serveForwarded(
  details: TcpConnectionDetails,
  accept: () => ClientChannel,
  reject: () => void,
  context: ForwardContext
): void {
  const entry = context.entries.find(e => e.name === details.destIP.toLowerCase())
  if (entry === undefined) return reject()
  const hooks = context.http?.(entry)
  if (hooks === undefined) return serveRaw(entry, accept, context)
  const channel = accept()
  context.track(channel)
  const client = clientAddress(details.srcIP, details.srcPort)
  readFirstBytes(channel, context, (sniffed, first) => {
    if (sniffed === 'http') {
      return new HttpConnection(channel, entry, client, context, hooks).start(first)
    }
    const record = (outcome: 'not-http' | 'refused' | 'unreachable') =>
      hooks.record?.({
        startedAt: Date.now(),
        entry: entry.name,
        ...(client !== undefined && { client }),
        method: '',
        target: '',
        httpVersion: '',
        requestHeaders: [],
        responseHeaders: [],
        durationMs: 0,
        bytesIn: first.length,
        bytesOut: 0,
        outcome,
        // Closed unanswered by the gate: its refusal, like a 401, is the tunnel's own.
        ...(outcome === 'refused' && { tunnelAnswered: true })
      })
    // With the gate on, bytes it cannot read never reach the app: they might be a request.
    if (!hooks.passNotHttp) {
      record('refused')
      return channel.close()
    }
    const local = connectLocal(entry, context)
    let connected = false
    local.once('connect', () => {
      connected = true
      record('not-http')
      local.write(first)
      pipeRaw(channel, local, entry, context)
    })
    local.on('error', error => {
      if (!connected) {
        context.localError(entry, (error as NodeJS.ErrnoException).code ?? error.message)
        record('unreachable')
        channel.close()
      } else channel.destroy()
    })
  })
}

/** The raw path, as fast as a pipe: the app is connected first, the channel accepted after. */
function serveRaw(entry: ExposeEntry, accept: () => ClientChannel, context: ForwardContext): void {
  const local = connectLocal(entry, context)
  let channel: ClientChannel | undefined
  local.once('connect', () => {
    channel = accept()
    pipeRaw(channel, local, entry, context)
  })
  local.on('error', error => {
    if (channel !== undefined) {
      channel.destroy()
      return
    }
    // The app is not listening (yet): this one connection fails, the tunnel stays up. Only
    // this path, which no working connection takes, reads the client's first bytes, to answer
    // a request with the 502 page instead of an unexplained drop.
    const code = (error as NodeJS.ErrnoException).code ?? error.message
    context.localError(entry, code)
    const refused = accept()
    context.track(refused)
    readFirstBytes(refused, context, sniffed => {
      if (sniffed === 'http') {
        refused.end(serializeAnswer(unreachableAnswer(entry, code)))
        refused.once('finish', () => refused.close())
      } else refused.close()
    })
  })
}

function connectLocal(entry: ExposeEntry, context: ForwardContext): Socket {
  // No Nagle delay: small answers go out at once, as through OpenSSH. The host is looked up
  // at most once a second (lookup-cache.ts), not once per connection.
  return connectTcp({ host: entry.host, port: entry.port, noDelay: true, lookup: context.lookup })
}

/**
 * Reads until the first bytes tell HTTP from the rest; the channel is left paused. The wait for
 * the first head is on the clock from here (head-watch.ts): an HTTP connection stays on it until
 * its head is whole (http-connection.ts), any other leaves it once it is known.
 */
function readFirstBytes(
  channel: ClientChannel,
  context: ForwardContext,
  decided: (sniffed: Exclude<Sniffed, 'more'>, first: Buffer) => void
): void {
  let first: Buffer = Buffer.alloc(0)
  const { heads } = context
  heads?.wait(channel)
  channel.once('close', () => heads?.done(channel))
  const onData = (chunk: Buffer): void => {
    context.bytes('bytesIn', chunk.length)
    first = first.length === 0 ? chunk : Buffer.concat([first, chunk])
    const sniffed = sniffRequestLine(first, MAX_HEAD_BYTES)
    if (sniffed === 'more') return heads?.holding(channel, first.length)
    channel.pause()
    channel.off('data', onData)
    if (sniffed !== 'http') heads?.done(channel)
    const read = first
    // The listeners left on the channel share this scope: they must not keep the bytes alive
    // (a slice of an SSH packet) for as long as the connection lasts.
    first = Buffer.alloc(0)
    decided(sniffed, read)
  }
  channel.on('data', onData)
  // A client that leaves before it says anything: nothing to serve.
  channel.once('end', () => {
    if (channel.listeners('data').includes(onData)) channel.close()
  })
}
