/**
 * The stand-in tunnel server: SSH (from the `ssh2` package) on a loopback port, where a tunnel
 * credential logs in with user = tunnel user and password = token (or a free credential's
 * client id and secret), or an uploaded SSH key logs in as the `client_id` it was uploaded with;
 * and an HTTP front that routes each request for `<name>-<user>.<fqdn>` (or `<name>.<fqdn>`, see
 * naming.ts) to the client's `-R <name>:80:localhost:<port>` forward. See service/README.md,
 * "Tunnel stand-in".
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import ssh2 from 'ssh2'
import { FREE_LIMITS } from '../endpoints.js'
import type { SshKeyStore } from '../ssh-keys.js'
import { isoTime, type TokenStore } from '../tokens.js'
import { SessionConsole } from './console.js'
import { ForwardTable, type Forward } from './forwards.js'
import { createFront, type Front, type FrontRoute } from './front.js'
import { generateHostKey, writeKnownHosts, type KnownHostsFile } from './host-key.js'
import { Logins, unusable, type Session } from './logins.js'
import { DEFAULT_NAMING, publicHost } from './naming.js'
import { openRawPort, type RawPort } from './raw-port.js'
import type { LoginAttempt, RunningTunnel, TunnelEvent, TunnelOptions } from './tunnel-types.js'

export type { LoginAttempt, RunningTunnel, TunnelEvent, TunnelOptions } from './tunnel-types.js'

/** Where both servers listen: the stand-in has public, fixed credentials and stays local. */
export const TUNNEL_LISTEN_HOST = '127.0.0.1'

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
  const table = new ForwardTable<Session>(naming, options.maxForwardsPerUser)
  const sessions = new Set<Session>()
  const log: TunnelEvent[] = []
  const attempts: LoginAttempt[] = []
  let sessionChannels = 0
  const note = (user: string, event: TunnelEvent['event'], detail: string): void => {
    log.push({ at: isoTime(now()), user, event, detail })
  }

  const logins = new Logins({
    tokens,
    sshKeys,
    now,
    openSessions: () => sessions,
    oneSessionPerCredential: options.oneSessionPerCredential ?? false,
    refused: (user, reason) => note(user, 'refused', reason)
  })

  const endSession = (session: Session, reason: string): void => {
    if (session.ended) return
    session.ended = true
    sessions.delete(session)
    table.removeSession(session)
    note(session.user, 'closed', reason)
    session.connection.end()
  }

  const ssh = new ssh2.Server(
    { hostKeys: [hostKey.privateKey], ident: 'credential-service-tunnel-stand-in' },
    connection => {
      let session: Session | undefined
      const serverConsole = new SessionConsole(
        connection,
        () => (sessionChannels += 1),
        options.silentConsole ?? false
      )
      connection.on('authentication', ctx => {
        attempts.push({ at: isoTime(now()), user: ctx.username, method: ctx.method })
        if (session !== undefined) return ctx.accept()
        session = logins.authenticate(ctx, connection)
        if (session === undefined) return
        // Counted before it is ready, so that a second login racing this one sees it.
        sessions.add(session)
        // After the assignment: accept() may emit 'ready' before it returns.
        ctx.accept()
      })
      connection.on('ready', () => {
        if (session === undefined) return
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
        if (!added.ok) {
          // Told before the refusal, so a client that reads its console has the reason by then.
          // A name in use is told by the name the client asked for, not by the label it routes on.
          const why = added.taken ? 'the name is in use by another tunnel' : added.reason
          serverConsole.say(`Forward ${JSON.stringify(info.bindAddr.slice(0, 80))} refused: ${why}`)
          return fail(added.reason)
        }
        note(session.user, 'forward', `${added.forward.label}.${naming.fqdn}`)
        accept?.()
      })
      // Nothing but remote forwards and the console: no commands, no -L, no socket forwarding.
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
    const refusal = unusable(forward.session.credential, now())
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
          : unusable(session.credential, now())
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
      sessionChannels: () => sessionChannels,
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
