/**
 * What the tunnel stand-in takes and gives: its options, the running server's interface, and the
 * events and login attempts it records (tunnel.ts implements them).
 */
import type { PublicNaming } from './naming.js'

export interface TunnelOptions {
  /** SSH port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number
  /** HTTP front port on 127.0.0.1; 0 (default) picks a free one. */
  frontPort?: number
  /** How often open sessions are checked (revoked, expired, free uptime over); default 1000 ms. */
  checkIntervalMs?: number
  /** How public hosts are named; default `<name>-<user>.localhost` (a shared server). */
  naming?: PublicNaming
  /**
   * Refuse the login of a credential that already has a session open, as a server that allows
   * one session per credential does: the SSH login is refused, with no reason given. Default
   * false: any number of sessions per credential, each with its own names.
   */
  oneSessionPerCredential?: boolean
  /** Most forwards one tunnel user holds at once, across all its sessions; default 5. */
  maxForwardsPerUser?: number
  /**
   * Refuse every session channel, so that a client is never told why a forward was refused, as
   * a server that keeps no console does. Default false: refusals are told on the console.
   */
  silentConsole?: boolean
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
  /**
   * How many session channels clients asked for since the start (the console, see console.ts): a
   * client that only forwards opens none.
   */
  sessionChannels(): number
  close(): Promise<void>
}

export interface LoginAttempt {
  at: string
  user: string
  /** `none`, `password`, `publickey`, `keyboard-interactive`, … as the client sent it. */
  method: string
}
