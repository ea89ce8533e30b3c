/**
 * One attempt to bring the tunnel up: connect, check the host key, authenticate, and have every
 * forward accepted. A server with several host keys may show one that is not pinned while it
 * also holds the pinned one: the attempt then connects again offering the other key types, and
 * never authenticates to a key that is not trusted.
 */
import type {
  ConnectConfig,
  ClientChannel,
  ServerHostKeyAlgorithm,
  TcpConnectionDetails
} from 'ssh2'
import { readFileSync } from 'node:fs'
// The client alone (see ssh2-client.d.ts): the keeper started in 50 ms instead of 80 here.
import Client from 'ssh2/lib/client.js'
import { cleanText } from '../../../text/printable.js'
import { keysAsKeyObjects } from './cipher-keys.js'
import { connectCoalesced } from './coalesced-socket.js'
import { hostKeyAlgorithms, type HostKeyTrust } from './host-keys.js'
import { forwardLimitIn, namesForwardLimit, ServerConsole, takenNameIn } from './server-console.js'
import type { FailureCause, KeeperConfig } from '../../protocol.js'

export const FORWARD_PORT = 80
const KEEPALIVE_MS = 10_000
/** Longest text from the tunnel server (or about it) that reaches a log line or a report. */
export const SERVER_TEXT_MAX = 200

export interface Attempt {
  ok: boolean
  /** The connection, when ok. */
  client?: Client
  cause?: FailureCause
  detail?: string
  name?: string
  /** The server said it refused a forward for its per-user limit, of this many forwards. */
  forwardLimit?: number
  /** The server said it refused forward `name` because another tunnel holds that name. */
  nameTaken?: true
}

export interface AttemptContext {
  config: KeeperConfig
  trust: HostKeyTrust
  log(message: string): void
  /** Every key the server shows, trusted or not: reported when the first start fails. */
  sawKey(fingerprint: string): void
  /** A key was trusted and the login goes on with it. */
  trustedKey(fingerprint: string): void
  serve(details: TcpConnectionDetails, accept: () => ClientChannel, reject: () => void): void
  stopping(): boolean
  now(): number
}

/**
 * Text from the tunnel server (its disconnect message, and anything ssh2 puts in an error's
 * message) is untrusted: on one line, without control or bidi characters, credential-shaped runs
 * hidden, and cut short.
 */
function serverText(text: string): string {
  return cleanText(text, SERVER_TEXT_MAX)
}

/** Cancels the forwards and ends the connection: the polite way to leave the server. */
export function closeConnection(client: Client, entries: KeeperConfig['entries']): void {
  try {
    for (const entry of entries) client.unforwardIn(entry.name, FORWARD_PORT, () => undefined)
  } catch {
    // "Not connected": the connection dropped and no new one is up; nothing to cancel.
  }
  client.end()
}

export async function attemptConnection(context: AttemptContext): Promise<Attempt> {
  const { config, trust } = context
  const deadline = context.now() + config.attemptTimeoutMs
  const shown = new Set<string>()
  let refusal: Attempt | undefined
  for (;;) {
    const offered = hostKeyAlgorithms(config.hostKeyPins, shown)
    const result = await connectOnce(context, offered, deadline)
    if (result.keyType === undefined) {
      // A trusted key (then whatever followed, a refused login too) is the outcome. A probe that
      // was shown no key (the server has none of the types left) ends with the first refusal.
      return result.keyTrusted || refusal === undefined ? result : refusal
    }
    refusal ??= result
    shown.add(result.keyType)
    // Another key type can only help while a pin may be of a type not yet shown.
    const open = config.hostKeyPins.some(
      pin => pin.keyType === undefined || !shown.has(pin.keyType)
    )
    const next = hostKeyAlgorithms(config.hostKeyPins, shown)
    if (!trust.pinned || !open || next === undefined || next.length === 0 || context.stopping()) {
      return refusal
    }
    context.log(`Trying again, offering host key types other than ${[...shown].join(', ')}`)
  }
}

/** keyType: of a key that was refused; keyTrusted: the key check passed. */
type Outcome = Attempt & { keyType?: string; keyTrusted?: boolean }

function connectOnce(
  context: AttemptContext,
  serverHostKey: ServerHostKeyAlgorithm[] | undefined,
  deadline: number
): Promise<Outcome> {
  const { config, trust } = context
  const client = new Client()
  let hostKeyRefused: Outcome | undefined
  let keyTrusted = false
  let settled = false
  return new Promise<Outcome>(resolve => {
    const settle = (result: Outcome): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      result.keyTrusted = keyTrusted
      if (result.ok) {
        result.client = client
        // A stop that came while this attempt ran: leave now rather than stay connected.
        if (context.stopping()) client.end()
      } else {
        client.removeAllListeners('close')
        client.on('error', () => undefined)
        client.end()
        client.destroy()
      }
      resolve(result)
    }
    const timer = setTimeout(
      () =>
        settle({
          ok: false,
          cause: 'timeout',
          detail: `no connection with every forward accepted within ${config.attemptTimeoutMs / 1000} s`
        }),
      Math.max(0, deadline - context.now())
    )

    client.on('keyboard-interactive', (_name, _instructions, _lang, prompts, finish) =>
      finish(prompts.map(() => config.token ?? ''))
    )
    // After every key exchange (the first one and any rekey): see cipher-keys.ts.
    client.on('handshake', () => keysAsKeyObjects(client))
    client.on('tcp connection', (details, accept, reject) => context.serve(details, accept, reject))
    client.on('error', error => {
      const level = (error as Error & { level?: string }).level
      const message = serverText(error.message)
      if (hostKeyRefused !== undefined) {
        settle(hostKeyRefused)
      } else if (level === 'client-authentication') {
        settle({
          ok: false,
          cause: 'auth',
          detail: `the tunnel server refused the credential of ${config.user} (${message})`
        })
      } else if (level === 'client-timeout') {
        settle({ ok: false, cause: 'timeout', detail: message })
      } else {
        settle({ ok: false, cause: 'connect', detail: message })
      }
    })
    client.on('close', () =>
      settle(
        hostKeyRefused ?? {
          ok: false,
          cause: 'connect',
          detail: 'the server closed the connection'
        }
      )
    )
    client.on('ready', () => {
      context.log(`Connected to ${config.host}:${config.port} as ${config.user}`)
      requestForwards(client, context).then(settle, (error: Error) =>
        settle({ ok: false, cause: 'connect', detail: serverText(error.message) })
      )
    })

    const connectConfig: ConnectConfig = {
      username: config.user,
      readyTimeout: config.attemptTimeoutMs,
      keepaliveInterval: KEEPALIVE_MS,
      keepaliveCountMax: 3,
      ...(serverHostKey !== undefined && { algorithms: { serverHostKey } }),
      // Runs before any authentication: a key that is not trusted ends the attempt first.
      hostVerifier: (key: Buffer) => {
        const verdict = trust.check(key)
        context.sawKey(verdict.fingerprint)
        if (verdict.trusted) {
          keyTrusted = true
          context.trustedKey(verdict.fingerprint)
          return true
        }
        hostKeyRefused = {
          ok: false,
          cause: 'host-key',
          detail: verdict.reason,
          keyType: verdict.keyType
        }
        context.log(
          `Host key ${verdict.fingerprint} (${verdict.keyType}) is not trusted; leaving before authentication`
        )
        return false
      }
    }
    if (config.token !== undefined) {
      connectConfig.password = config.token
      connectConfig.tryKeyboard = true
    }
    // Our own socket, so that the pieces ssh2 writes per packet leave together.
    const socket = connectCoalesced(config.port, config.host)
    try {
      if (config.privateKeyPath !== undefined) {
        connectConfig.privateKey = readFileSync(config.privateKeyPath)
      }
      client.connect({ ...connectConfig, sock: socket })
    } catch (error) {
      socket.destroy()
      settle({ ok: false, cause: 'connect', detail: serverText((error as Error).message) })
    }
  })
}

async function requestForwards(client: Client, context: AttemptContext): Promise<Attempt> {
  const results = await Promise.all(
    context.config.entries.map(
      entry =>
        new Promise<Attempt>(resolve =>
          client.forwardIn(entry.name, FORWARD_PORT, error => {
            if (error) {
              context.log(`Forward ${entry.name} refused by the server`)
              resolve({
                ok: false,
                cause: 'forward',
                name: entry.name,
                detail: `the tunnel server refused the forward for "${entry.name}"`
              })
            } else {
              context.log(`Forward ${entry.name} accepted -> ${entry.host}:${entry.port}`)
              resolve({ ok: true })
            }
          })
        )
    )
  )
  const refused = results.filter(result => !result.ok)
  if (refused.length === 0) return { ok: true }
  return await explainRefusal(client, context, refused)
}

/**
 * Asks the server's console why (server-console.ts): opened only now, since on an ordinary SSH
 * server it starts a login shell. Without a line of ours, the first refusal stands as it was.
 */
async function explainRefusal(
  client: Client,
  context: AttemptContext,
  refused: Attempt[]
): Promise<Attempt> {
  const names = refused.map(result => result.name!)
  const said = await new ServerConsole(client).find(
    line => namesForwardLimit(line) || takenNameIn(line, names) !== undefined
  )
  const taken = takenNameIn(said, names)
  if (taken !== undefined) {
    context.log(`The server says the name ${taken} is in use by another tunnel`)
    return {
      ...refused.find(result => result.name === taken)!,
      nameTaken: true,
      detail: `the tunnel server refused the forward for "${taken}": the name is in use by another tunnel`
    }
  }
  const limit = forwardLimitIn(said)
  if (limit === undefined) return refused[0]
  context.log(`The server allows at most ${limit} forwards per tunnel user`)
  return {
    ...refused[0],
    forwardLimit: limit,
    detail: `${refused[0].detail!}: it allows at most ${limit} forwards per tunnel user (all jobs sharing the credential count)`
  }
}
