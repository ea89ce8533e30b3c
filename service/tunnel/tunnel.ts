/**
 * The stand-in tunnel server: SSH (from the `ssh2` package) on a loopback port, where a tunnel
 * credential logs in with user = tunnel user and password = token (or a free credential's
 * client id and secret), or an uploaded SSH key logs in as the `client_id` it was uploaded with;
 * and an HTTP front that routes each request for `<name>-<user>.<fqdn>` (or `<name>.<fqdn>`, see
 * naming.ts) to the client's `-R <name>:80:localhost:<port>` forward. See service/README.md,
 * "Tunnel stand-in".
 */
import { timingSafeEqual } from 'node:crypto'
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import ssh2, {
  type AuthContext,
  type AuthenticationType,
  type Connection,
  type PublicKeyAuthContext
} from 'ssh2'
import { FREE_LIMITS } from '../endpoints.js'
import { sshKeyStatus, type SshKeyRecord, type SshKeyStore } from '../ssh-keys.js'
import { isoTime, tokenStatus, type TokenRecord, type TokenStore } from '../tokens.js'
import { ForwardTable, type Forward } from './forwards.js'
import { createFront, type Front, type FrontRoute } from './front.js'
import { generateHostKey, writeKnownHosts, type KnownHostsFile } from './host-key.js'
import { DEFAULT_NAMING, publicHost, type PublicNaming } from './naming.js'
import { openRawPort, type RawPort } from './raw-port.js'

/** Where both servers listen: the stand-in has public, fixed credentials and stays local. */
export const TUNNEL_LISTEN_HOST = '127.0.0.1'

export interface TunnelOptions {
  /** SSH port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number
  /** HTTP front port on 127.0.0.1; 0 (default) picks a free one. */
  frontPort?: number
  /** How often open sessions are checked (revoked, expired, free uptime over); default 1000 ms. */
  checkIntervalMs?: number
  /** How public hosts are named; default `<name>-<user>.localhost` (a shared server). */
  naming?: PublicNaming
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
  /** `http://127.0.0.1:<front port>`: send `Host: <name>-<user>.<fqdn>` (or `<name>.<fqdn>`) to it. */
  frontUrl: string
  /** How this server names its public hosts: the domain and whether the user is in the name. */
  naming: PublicNaming
  /** A known_hosts file naming this server's key for `[host]:port`, for `UserKnownHostsFile`. */
  knownHostsPath: string
  /** `ssh-ed25519 AAAA…` */
  hostKey: string
  /** `SHA256:…` */
  fingerprint: string
  /** `http://<name>-<user>.<fqdn>:<front port>/`, or `http://<name>.<fqdn>:<front port>/`. */
  urlFor(name: string, user: string): string
  /**
   * `http://{name}-{user}.<fqdn>:<front port>` (or without `-{user}`): the action's `url-template`
   * that forms the URLs this front serves, in plain http on its own port.
   */
  urlTemplate: string
  /**
   * Closes every open SSH connection, logged in or not, as a network drop would: the sockets
   * are destroyed, nothing is revoked, and the same credential may log in again at once.
   * Returns how many logged-in sessions it ended.
   */
  dropSessions(): number
  /**
   * A plain TCP port whose connections reach forward `name` of `user` as channels, bytes
   * unchanged (the front passes only HTTP); closed with the server.
   */
  rawPort(name: string, user: string): Promise<number>
  /** Open forwards, as the front routes them. */
  forwards(): Array<{ user: string; name: string; host: string }>
  /** Authenticated connections still open. */
  sessions(): Array<{ user: string; connectedAt: string; forwards: string[] }>
  /** What happened, oldest first: logins refused and why, forwards, server-side closes. */
  events(): TunnelEvent[]
  /**
   * Every authentication request, oldest first, with its user and method: proof that a client
   * which left at the host key check sent no token.
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

/** What a session logged in with: a token, or an uploaded SSH key. */
type SessionCredential =
  { kind: 'token'; record: TokenRecord } | { kind: 'ssh-key'; record: SshKeyRecord }

interface Session {
  user: string
  credential: SessionCredential
  connection: Connection
  connectedAt: number
  /** Free credentials: when `max_uptime_minutes` is over. */
  endsAt: number | null
  ended: boolean
}

/** What a refused client may try next: a password (token) or a public key. */
const LOGIN_METHODS: AuthenticationType[] = ['publickey', 'password']

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
 * Starts SSH and the front. `tokens` and `sshKeys` are read at every login and every check, so
 * revoking or expiring a credential through the service takes effect here without any call
 * between them. `knownHostNames` are the host names written to known_hosts besides 127.0.0.1.
 */
export async function startTunnelServer(
  tokens: TokenStore,
  sshKeys: SshKeyStore,
  now: () => number,
  knownHostNames: string[],
  options: TunnelOptions = {}
): Promise<RunningTunnel> {
  const hostKey = generateHostKey()
  const naming = options.naming ?? DEFAULT_NAMING
  const table = new ForwardTable<Session>(naming)
  const sessions = new Set<Session>()
  const log: TunnelEvent[] = []
  const attempts: LoginAttempt[] = []
  const note = (user: string, event: TunnelEvent['event'], detail: string): void => {
    log.push({ at: isoTime(now()), user, event, detail })
  }

  /** Why this credential may not log in or stay connected now; null while it may. */
  const unusable = (credential: SessionCredential): string | null => {
    const status =
      credential.kind === 'token'
        ? tokenStatus(credential.record, now())
        : sshKeyStatus(credential.record, now())
    return status === 'active' ? null : `credential ${status}`
  }

  const openSession = (
    user: string,
    credential: SessionCredential,
    connection: Connection
  ): Session => {
    const at = now()
    const free = credential.kind === 'token' && credential.record.tunnelType === 'free'
    return {
      user,
      credential,
      connection,
      connectedAt: at,
      endsAt: free ? at + FREE_LIMITS.max_uptime_minutes * 60_000 : null,
      ended: false
    }
  }

  const endSession = (session: Session, reason: string): void => {
    if (session.ended) return
    session.ended = true
    sessions.delete(session)
    table.removeSession(session)
    note(session.user, 'closed', reason)
    session.connection.end()
  }

  /**
   * Public-key login: the user is the key's `client_id`. The client first asks whether a key
   * would do (no signature), then signs; only a signature that verifies opens a session.
   */
  function authenticateKey(ctx: PublicKeyAuthContext, connection: Connection): Session | undefined {
    const candidates = sshKeys.forLogin(ctx.username, ctx.key.data)
    const record = candidates.find(
      candidate => unusable({ kind: 'ssh-key', record: candidate }) === null
    )
    if (record === undefined) {
      const refusal =
        candidates.length === 0
          ? 'no key uploaded with this client_id'
          : unusable({ kind: 'ssh-key', record: candidates[0] })
      note(ctx.username, 'refused', refusal ?? 'refused')
      ctx.reject(LOGIN_METHODS)
      return undefined
    }
    if (ctx.signature === undefined || ctx.blob === undefined) {
      // The probe: "this key would be accepted". It opens no session, so accept() here
      // answers with PK_OK, not with success.
      ctx.accept()
      return undefined
    }
    const parsed = ssh2.utils.parseKey(record.key.line)
    const verified =
      !(parsed instanceof Error) && parsed.verify(ctx.blob, ctx.signature, ctx.hashAlgo) === true
    if (!verified) {
      note(ctx.username, 'refused', 'bad signature')
      ctx.reject(LOGIN_METHODS)
      return undefined
    }
    return openSession(ctx.username, { kind: 'ssh-key', record }, connection)
  }

  /** Token login: user = tunnel user, password = token. */
  function authenticatePassword(
    ctx: AuthContext & { method: 'password' },
    connection: Connection
  ): Session | undefined {
    const record = tokens.find(ctx.username)
    const refusal =
      record === undefined
        ? 'unknown tunnel user'
        : !sameSecret(ctx.password, record.secret)
          ? 'wrong token'
          : unusable({ kind: 'token', record })
    if (record === undefined || refusal !== null) {
      note(ctx.username, 'refused', refusal ?? 'refused')
      ctx.reject(LOGIN_METHODS)
      return undefined
    }
    record.lastUsedAt = now()
    record.usageCount += 1
    return openSession(record.tunnelUser, { kind: 'token', record }, connection)
  }

  /** The session a login opens, or undefined when it opens none; the caller accepts a session. */
  function authenticate(ctx: AuthContext, connection: Connection): Session | undefined {
    if (ctx.method === 'publickey') return authenticateKey(ctx, connection)
    if (ctx.method === 'password') return authenticatePassword(ctx, connection)
    ctx.reject(LOGIN_METHODS)
    return undefined
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
        const { credential } = session
        note(
          session.user,
          'connected',
          credential.kind === 'token' ? credential.record.tunnelType : 'ssh-key'
        )
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
        note(session.user, 'forward', `${added.forward.label}.${naming.fqdn}`)
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
    // No Nagle delay: small replies held back for an ACK would add up to 40 ms per request
    // through the tunnel, a cost of the stand-in rather than of the client being measured.
    socket.setNoDelay(true)
    ssh.injectSocket(socket)
  })

  // One route per forward, so the front can keep that forward's idle channels together.
  const routes = new WeakMap<Forward<Session>, FrontRoute>()
  const routeTo = (forward: Forward<Session>): FrontRoute => {
    let found = routes.get(forward)
    if (found === undefined) {
      found = {
        open: (remoteAddress, remotePort) =>
          new Promise<Duplex>((resolve, reject) => {
            forward.session.connection.forwardOut(
              forward.bindAddr,
              forward.bindPort,
              remoteAddress,
              remotePort,
              (error, channel) => (error === undefined ? resolve(channel) : reject(error))
            )
          })
      }
      routes.set(forward, found)
    }
    return found
  }
  const route = (host: string): FrontRoute | undefined => {
    const forward = table.route(host)
    if (forward === undefined) return undefined
    // Revoked since the last check: end it now rather than serve one more request.
    const refusal = unusable(forward.session.credential)
    if (refusal !== null) {
      endSession(forward.session, refusal)
      return undefined
    }
    return routeTo(forward)
  }
  const front: Front = createFront(route)
  const rawPorts: RawPort[] = []

  const timer = setInterval(() => {
    for (const session of sessions) {
      // Uptime first: a free token's 5-minute life ends no later, so it would hide the reason.
      const refusal =
        session.endsAt !== null && now() >= session.endsAt
          ? `max_uptime_minutes (${FREE_LIMITS.max_uptime_minutes}) reached`
          : unusable(session.credential)
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
      naming: { ...naming },
      knownHostsPath: written.path,
      hostKey: hostKey.publicKey,
      fingerprint: hostKey.fingerprint,
      urlFor: (name, user) => `http://${publicHost(naming, name, user)}:${frontPort}/`,
      urlTemplate: `http://${publicHost(naming, '{name}', '{user}')}:${frontPort}`,
      dropSessions: () => {
        const dropped = sessions.size
        for (const session of sessions) {
          session.ended = true
          table.removeSession(session)
          note(session.user, 'closed', 'dropped (admin tunnel/drop)')
        }
        sessions.clear()
        // Destroyed, not ended: no SSH disconnect message, so the client sees a lost connection.
        for (const socket of sockets) socket.destroy()
        return dropped
      },
      rawPort: async (name, user) => {
        const raw = await openRawPort(TUNNEL_LISTEN_HOST, () =>
          route(publicHost(naming, name, user))
        )
        rawPorts.push(raw)
        return raw.port
      },
      forwards: () =>
        table
          .all()
          .map(({ user, name, label }) => ({ user, name, host: `${label}.${naming.fqdn}` })),
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
            ...rawPorts.map(raw => raw.close()),
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
