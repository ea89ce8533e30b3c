/**
 * The stand-in tunnel server: SSH (from the `ssh2` package) on a loopback port, where a tunnel
 * credential logs in with user = tunnel user and password = token (or a free credential's
 * client id and secret), and an HTTP front that routes `<name>-<user>.localhost` to the
 * client's `-R <name>:80:localhost:<port>` forward. See service/README.md, "Tunnel stand-in".
 */
import { timingSafeEqual } from 'node:crypto'
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import ssh2, { type AuthContext, type Connection } from 'ssh2'
import { FREE_LIMITS } from '../endpoints.js'
import { isoTime, tokenStatus, type TokenRecord, type TokenStore } from '../tokens.js'
import { ForwardTable } from './forwards.js'
import { createFront, type Front, type FrontRoute } from './front.js'
import { generateHostKey, writeKnownHosts, type KnownHostsFile } from './host-key.js'

/** Where both servers listen: the stand-in has public, fixed credentials and stays local. */
export const TUNNEL_LISTEN_HOST = '127.0.0.1'

export interface TunnelOptions {
  /** SSH port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number
  /** HTTP front port on 127.0.0.1; 0 (default) picks a free one. */
  frontPort?: number
  /** How often open sessions are checked (revoked, expired, free uptime over); default 1000 ms. */
  checkIntervalMs?: number
}

export interface TunnelEvent {
  at: string
  user: string
  event: 'refused' | 'connected' | 'forward' | 'forward refused' | 'closed'
  /** Why, for refusals and server-side closes; the forward's host for forwards. */
  detail: string
}

export interface RunningTunnel {
  /** 127.0.0.1 */
  host: string
  /** SSH port. */
  port: number
  frontPort: number
  /** `http://127.0.0.1:<front port>`: send `Host: <name>-<user>.localhost` to it. */
  frontUrl: string
  /** A known_hosts file naming this server's key for `[host]:port`, for `UserKnownHostsFile`. */
  knownHostsPath: string
  /** `ssh-ed25519 AAAA…` */
  hostKey: string
  /** `SHA256:…` */
  fingerprint: string
  /** `http://<name>-<user>.localhost:<front port>/` */
  urlFor(name: string, user: string): string
  /** Open forwards, as the front routes them. */
  forwards(): Array<{ user: string; name: string; host: string }>
  /** Authenticated connections still open. */
  sessions(): Array<{ user: string; connectedAt: string; forwards: string[] }>
  /** What happened, oldest first: logins refused and why, forwards, server-side closes. */
  events(): TunnelEvent[]
  /**
   * Every authentication request, oldest first, with its method and whether it carried an
   * active token: proof that a client which left at the host key check sent no token.
   */
  loginAttempts(): LoginAttempt[]
  close(): Promise<void>
}

export interface LoginAttempt {
  at: string
  user: string
  /** `none`, `password`, `publickey`, `keyboard-interactive`, … as the client sent it. */
  method: string
}

interface Session {
  user: string
  record: TokenRecord
  connection: Connection
  connectedAt: number
  /** Free credentials: when `max_uptime_minutes` is over. */
  endsAt: number | null
  ended: boolean
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, TUNNEL_LISTEN_HOST, () => {
      server.off('error', reject)
      resolve((server.address() as AddressInfo).port)
    })
  })
}

/**
 * Starts SSH and the front. `tokens` is read at every login and every check, so revoking or
 * expiring a token through the service takes effect here without any call between them.
 * `knownHostNames` are the host names written to known_hosts besides 127.0.0.1.
 */
export async function startTunnelServer(
  tokens: TokenStore,
  now: () => number,
  knownHostNames: string[],
  options: TunnelOptions = {}
): Promise<RunningTunnel> {
  const hostKey = generateHostKey()
  const table = new ForwardTable<Session>()
  const sessions = new Set<Session>()
  const log: TunnelEvent[] = []
  const attempts: LoginAttempt[] = []
  const note = (user: string, event: TunnelEvent['event'], detail: string): void => {
    log.push({ at: isoTime(now()), user, event, detail })
  }

  /** Why this credential may not log in or stay connected now; null while it may. */
  const unusable = (record: TokenRecord): string | null => {
    const status = tokenStatus(record, now())
    return status === 'active' ? null : `credential ${status}`
  }

  const endSession = (session: Session, reason: string): void => {
    if (session.ended) return
    session.ended = true
    sessions.delete(session)
    table.removeSession(session)
    note(session.user, 'closed', reason)
    session.connection.end()
  }

  /** The session a login opens, or undefined after rejecting it; the caller accepts. */
  function authenticate(ctx: AuthContext, connection: Connection): Session | undefined {
    // Only passwords: the client then asks its askpass program (or the user) for the token.
    if (ctx.method !== 'password') {
      ctx.reject(['password'])
      return undefined
    }
    const record = tokens.find(ctx.username)
    const refusal =
      record === undefined
        ? 'unknown tunnel user'
        : !sameSecret(ctx.password, record.secret)
          ? 'wrong token'
          : unusable(record)
    if (record === undefined || refusal !== null) {
      note(ctx.username, 'refused', refusal ?? 'refused')
      ctx.reject(['password'])
      return undefined
    }
    const at = now()
    record.lastUsedAt = at
    record.usageCount += 1
    return {
      user: record.tunnelUser,
      record,
      connection,
      connectedAt: at,
      endsAt: record.tunnelType === 'free' ? at + FREE_LIMITS.max_uptime_minutes * 60_000 : null,
      ended: false
    }
  }

  const ssh = new ssh2.Server(
    { hostKeys: [hostKey.privateKey], ident: 'credential-service-tunnel-stand-in' },
    connection => {
      let session: Session | undefined
      connection.on('authentication', ctx => {
        attempts.push({ at: isoTime(now()), user: ctx.username, method: ctx.method })
        if (session !== undefined) return ctx.accept()
        session = authenticate(ctx, connection)
        // After the assignment: accept() may emit 'ready' before it returns.
        if (session !== undefined) ctx.accept()
      })
      connection.on('ready', () => {
        if (session === undefined) return
        sessions.add(session)
        note(session.user, 'connected', session.record.tunnelType)
      })
      connection.on('request', (accept, reject, name, info) => {
        const fail = (detail: string): void => {
          if (session !== undefined) note(session.user, 'forward refused', detail)
          reject?.()
        }
        if (session === undefined || session.ended) return fail('not logged in')
        if (name === 'cancel-tcpip-forward') {
          return table.remove(session.user, info.bindAddr, session) ? accept?.() : reject?.()
        }
        if (name !== 'tcpip-forward') return reject?.()
        const added = table.add(session.user, info.bindAddr, info.bindPort, session)
        if (!added.ok) return fail(added.reason)
        note(session.user, 'forward', `${added.forward.label}.localhost`)
        accept?.()
      })
      // Nothing but remote forwards: no shell, no commands, no -L, no socket forwarding.
      connection.on('session', (_accept, reject) => reject())
      connection.on('tcpip', (_accept, reject) => reject())
      connection.on('openssh.streamlocal', (_accept, reject) => reject())
      connection.on('error', () => undefined)
      connection.on('close', () => {
        if (session === undefined || session.ended) return
        session.ended = true
        sessions.delete(session)
        table.removeSession(session)
      })
    }
  )

  // ssh2 gets its sockets from this listener, so close() can end every one of them.
  const sockets = new Set<Socket>()
  const listener = createServer(socket => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    ssh.injectSocket(socket)
  })

  const route = (host: string): FrontRoute | undefined => {
    const forward = table.route(host)
    if (forward === undefined) return undefined
    const session = forward.session
    // Revoked since the last check: end it now rather than serve one more request.
    const refusal = unusable(session.record)
    if (refusal !== null) {
      endSession(session, refusal)
      return undefined
    }
    return {
      open: (remoteAddress, remotePort) =>
        new Promise<Duplex>((resolve, reject) => {
          session.connection.forwardOut(
            forward.bindAddr,
            forward.bindPort,
            remoteAddress,
            remotePort,
            (error, channel) => (error === undefined ? resolve(channel) : reject(error))
          )
        })
    }
  }
  const front: Front = createFront(route)

  const timer = setInterval(() => {
    for (const session of sessions) {
      // Uptime first: a free token's 5-minute life ends no later, so it would hide the reason.
      const refusal =
        session.endsAt !== null && now() >= session.endsAt
          ? `max_uptime_minutes (${FREE_LIMITS.max_uptime_minutes}) reached`
          : unusable(session.record)
      if (refusal !== null) endSession(session, refusal)
    }
  }, options.checkIntervalMs ?? 1000)
  timer.unref()

  let knownHosts: KnownHostsFile | undefined
  try {
    const port = await listen(listener, options.port ?? 0)
    const frontPort = await listen(front.server, options.frontPort ?? 0)
    knownHosts = writeKnownHosts([TUNNEL_LISTEN_HOST, ...knownHostNames], port, hostKey.publicKey)
    const written = knownHosts
    let closing: Promise<void> | undefined
    return {
      host: TUNNEL_LISTEN_HOST,
      port,
      frontPort,
      frontUrl: `http://${TUNNEL_LISTEN_HOST}:${frontPort}`,
      knownHostsPath: written.path,
      hostKey: hostKey.publicKey,
      fingerprint: hostKey.fingerprint,
      urlFor: (name, user) => `http://${name}-${user}.localhost:${frontPort}/`,
      forwards: () =>
        table.all().map(({ user, name, label }) => ({ user, name, host: `${label}.localhost` })),
      sessions: () =>
        [...sessions].map(session => ({
          user: session.user,
          connectedAt: isoTime(session.connectedAt),
          forwards: table
            .all()
            .filter(forward => forward.session === session)
            .map(forward => forward.name)
        })),
      events: () => log.map(event => ({ ...event })),
      loginAttempts: () => attempts.map(attempt => ({ ...attempt })),
      close: () => {
        closing ??= (async () => {
          clearInterval(timer)
          for (const session of sessions) endSession(session, 'service stopping')
          await Promise.all([
            new Promise<void>(resolve => listener.close(() => resolve())),
            new Promise<void>(resolve => front.server.close(() => resolve())),
            (() => {
              for (const socket of sockets) socket.destroy()
              front.destroyConnections()
            })()
          ])
          written.remove()
        })()
        return closing
      }
    }
  } catch (error) {
    clearInterval(timer)
    listener.close()
    front.server.close()
    knownHosts?.remove()
    throw error
  }
}
