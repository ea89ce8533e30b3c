/**
 * Which remote forwards are open, by the first label of the host the HTTP front routes on:
 * `-R <name>:80:…` from tunnel user `<user>` is `<name>-<user>` on a server that appends the user,
 * `<name>` on one that does not (see naming.ts). A label is held once: a second registration of
 * a name in use is refused, so on a server without the user in the name, two users collide.
 * Pure bookkeeping; the SSH side decides when to add and remove.
 */
import { LABEL, publicLabel, routingLabel, type PublicNaming } from './naming.js'

/**
 * Most forwards one tunnel user may hold at once, across all of its connections, unless the
 * server is started with another limit (`maxForwardsPerUser`).
 */
export const MAX_FORWARDS_PER_USER = 5
/** The only remote port a forward may ask for: the front serves HTTP on names, not on ports. */
export const FORWARD_PORT = 80

export interface Forward<Session> {
  /** The name as the front routes on it, lower-case. */
  name: string
  user: string
  /** The first label of the public host: `<name>-<user>` or `<name>`. */
  label: string
  /** The address and port exactly as the client sent them; `forwarded-tcpip` must echo them. */
  bindAddr: string
  bindPort: number
  session: Session
}

export type AddResult<Session> =
  | { ok: true; forward: Forward<Session> }
  /**
   * `limit`: refused because the user holds this many already; `taken`: its name is in use. Both
   * are what a client may be told.
   */
  | { ok: false; reason: string; limit?: number; taken?: true }

export class ForwardTable<Session> {
  private readonly byLabel = new Map<string, Forward<Session>>()

  constructor(
    private readonly naming: PublicNaming,
    private readonly maxPerUser = MAX_FORWARDS_PER_USER
  ) {}

  add(user: string, bindAddr: string, bindPort: number, session: Session): AddResult<Session> {
    const name = bindAddr.toLowerCase()
    if (bindPort !== FORWARD_PORT) {
      return { ok: false, reason: `only port ${FORWARD_PORT} can be forwarded, not ${bindPort}` }
    }
    if (!LABEL.test(name)) {
      return { ok: false, reason: 'the name must be letters, digits and dashes (a DNS label)' }
    }
    const label = publicLabel(this.naming, name, user)
    // Said apart from a long name: the user can never forward anything, whatever the name.
    if (this.naming.appendUser && !LABEL.test(user)) {
      return {
        ok: false,
        reason: `the tunnel user ${user} is not a lower-case DNS label (letters, digits and inner dashes), so no host name can route to its forwards`
      }
    }
    if (!LABEL.test(label)) return { ok: false, reason: 'the name is too long' }
    if (this.byLabel.has(label)) {
      return { ok: false, reason: `${label} is already forwarded`, taken: true }
    }
    if (this.ofUser(user).length >= this.maxPerUser) {
      return {
        ok: false,
        reason: `at most ${this.maxPerUser} forwards per tunnel user, across all its sessions`,
        limit: this.maxPerUser
      }
    }
    const forward: Forward<Session> = { name, user, label, bindAddr, bindPort, session }
    this.byLabel.set(label, forward)
    return { ok: true, forward }
  }

  /** Cancels one forward of this session; false if it holds none by that name. */
  remove(user: string, bindAddr: string, session: Session): boolean {
    const label = publicLabel(this.naming, bindAddr.toLowerCase(), user)
    const forward = this.byLabel.get(label)
    if (forward?.session !== session) return false
    return this.byLabel.delete(label)
  }

  /** Drops every forward of a session that ended. */
  removeSession(session: Session): void {
    for (const [label, forward] of this.byLabel) {
      if (forward.session === session) this.byLabel.delete(label)
    }
  }

  /** The forward a request for this host (without its port) goes to, by its first label. */
  route(host: string): Forward<Session> | undefined {
    const label = routingLabel(host)
    return label === undefined ? undefined : this.byLabel.get(label)
  }

  ofUser(user: string): Forward<Session>[] {
    return this.all().filter(forward => forward.user === user)
  }

  all(): Forward<Session>[] {
    return [...this.byLabel.values()]
  }
}
