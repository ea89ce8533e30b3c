/**
 * Who may log in to the tunnel stand-in, and the session a login opens: a token (password, user =
 * tunnel user) or an uploaded SSH key (public key, user = its `client_id`). On a server started
 * with `oneSessionPerCredential`, a credential that already has a session open is refused too.
 * Every refusal is the same to the client, as SSH gives no reason; the events say which it was.
 */
import { timingSafeEqual } from 'node:crypto'
import ssh2, {
  type AuthContext,
  type AuthenticationType,
  type Connection,
  type PublicKeyAuthContext
} from 'ssh2'
import { FREE_LIMITS } from '../endpoints.js'
import { sshKeyStatus, type SshKeyRecord, type SshKeyStore } from '../ssh-keys.js'
import { tokenStatus, type TokenRecord, type TokenStore } from '../tokens.js'

/** What a session logged in with: a token, or an uploaded SSH key. */
export type SessionCredential =
  { kind: 'token'; record: TokenRecord } | { kind: 'ssh-key'; record: SshKeyRecord }

export interface Session {
  user: string
  credential: SessionCredential
  connection: Connection
  connectedAt: number
  /** Free credentials: when `max_uptime_minutes` is over. */
  endsAt: number | null
  ended: boolean
}

export interface LoginRules {
  tokens: TokenStore
  sshKeys: SshKeyStore
  now(): number
  /** The sessions open now, logged in or about to be. */
  openSessions(): Iterable<Session>
  oneSessionPerCredential: boolean
  /** Records why a login was refused. */
  refused(user: string, reason: string): void
}

/** The refusal recorded when a second session of one credential is turned away. */
export const SECOND_SESSION_REFUSAL = 'one session per credential, and one is open'

/** What a refused client may try next: a password (token) or a public key. */
const LOGIN_METHODS: AuthenticationType[] = ['publickey', 'password']

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Why this credential may not log in or stay connected now; null while it may. */
export function unusable(credential: SessionCredential, now: number): string | null {
  const status =
    credential.kind === 'token'
      ? tokenStatus(credential.record, now)
      : sshKeyStatus(credential.record, now)
  return status === 'active' ? null : `credential ${status}`
}

export class Logins {
  constructor(private readonly rules: LoginRules) {}

  /** The session a login opens, or undefined when it opens none; the caller accepts a session. */
  authenticate(ctx: AuthContext, connection: Connection): Session | undefined {
    if (ctx.method === 'publickey') return this.withKey(ctx, connection)
    if (ctx.method === 'password') return this.withToken(ctx, connection)
    ctx.reject(LOGIN_METHODS)
    return undefined
  }

  private refuse(ctx: AuthContext, reason: string): undefined {
    this.rules.refused(ctx.username, reason)
    ctx.reject(LOGIN_METHODS)
    return undefined
  }

  /** Null, or the refusal of a credential whose one allowed session is open already. */
  private busy(credential: SessionCredential): string | null {
    if (!this.rules.oneSessionPerCredential) return null
    for (const session of this.rules.openSessions()) {
      if (!session.ended && session.credential.record === credential.record) {
        return SECOND_SESSION_REFUSAL
      }
    }
    return null
  }

  /**
   * Public-key login: the user is the key's `client_id`. The client first asks whether a key
   * would do (no signature), then signs; only a signature that verifies opens a session.
   */
  private withKey(ctx: PublicKeyAuthContext, connection: Connection): Session | undefined {
    const now = this.rules.now()
    const candidates = this.rules.sshKeys.forLogin(ctx.username, ctx.key.data)
    const record = candidates.find(
      candidate => unusable({ kind: 'ssh-key', record: candidate }, now) === null
    )
    if (record === undefined) {
      const refusal =
        candidates.length === 0
          ? 'no key uploaded with this client_id'
          : unusable({ kind: 'ssh-key', record: candidates[0] }, now)
      return this.refuse(ctx, refusal ?? 'refused')
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
    if (!verified) return this.refuse(ctx, 'bad signature')
    const credential: SessionCredential = { kind: 'ssh-key', record }
    const busy = this.busy(credential)
    if (busy !== null) return this.refuse(ctx, busy)
    return this.open(ctx.username, credential, connection)
  }

  /** Token login: user = tunnel user, password = token. */
  private withToken(
    ctx: AuthContext & { method: 'password' },
    connection: Connection
  ): Session | undefined {
    const record = this.rules.tokens.find(ctx.username)
    if (record === undefined) return this.refuse(ctx, 'unknown tunnel user')
    if (!sameSecret(ctx.password, record.secret)) return this.refuse(ctx, 'wrong token')
    const credential: SessionCredential = { kind: 'token', record }
    const refusal = unusable(credential, this.rules.now()) ?? this.busy(credential)
    if (refusal !== null) return this.refuse(ctx, refusal)
    record.lastUsedAt = this.rules.now()
    record.usageCount += 1
    return this.open(record.tunnelUser, credential, connection)
  }

  private open(user: string, credential: SessionCredential, connection: Connection): Session {
    const at = this.rules.now()
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
}
