import type { OptionSource, RunIdentity, ShareScope, StepLog } from '../host.js'
import type { AnswerUrlFields } from '../service/answer-url.js'
import type { CredentialService } from '../service/client.js'
import type { KnownUser, UserOption } from '../settings/login-options.js'
import type { CommonSettings, KindName, PostSettings } from '../settings/types.js'

export type { KnownUser, StepLog, UserOption }

/**
 * A credential kind is a strategy that owns all of itself: it reads its own options, obtains its
 * credential (main), says what to publish, reads back what it saved, and revokes (post). Adding
 * a kind touches its module, the registry's table and action.yml; main and post only route.
 */
export interface CredentialKind<Settings extends KindSettings, Saved extends SavedRecord> {
  /**
   * Reads and checks this kind's options, after the ones every kind shares. `auto` is true when
   * `credential: auto` chose it. Throws an ExplainedError that names the option at fault.
   */
  readSettings(options: OptionSource, common: CommonSettings, choice: { auto: boolean }): Settings
  /** False for a kind that never calls the credential service (post then needs no base-url). */
  sendsRequests: boolean
  /**
   * What post does with its record: `revoke` it; nothing, since the service offers no revoke
   * (`unrevocable`); or nothing, since the job held the credential before (`held`).
   */
  revocation: 'revoke' | 'unrevocable' | 'held'
  /**
   * Obtains the credential and publishes it (context.publish). Saves what post needs before
   * anything can fail halfway, and revokes at once a credential it cannot hand over.
   */
  obtain(settings: Settings, context: ObtainContext<Saved>): Promise<Obtained>
  /**
   * Post: what main saved, read field by field from state anyone could write (the kind written
   * in it is not trusted); undefined when anything it needs is missing or malformed.
   */
  readSaved(value: Record<string, unknown>): Saved | undefined
  /**
   * Post's side: revokes what main obtained (`revoked`, also when the service says it is gone
   * already), or says why it leaves it (`kept`: the options ask to) or has nothing to do
   * (`nothing`). Throws on failure.
   */
  revoke(saved: Saved, context: RevokeContext): Promise<RevokedAs>
  /** How post's messages name the credential, e.g. "the tunnel token of user ab12c". */
  describe(saved: Saved): string
}

/** What every kind's settings hold: the shared options, and which kind they are for. */
export interface KindSettings extends CommonSettings {
  kind: KindName
  /**
   * The tunnel server, when the options name it before any request: the URLs `expose` will
   * publish are checked with it then. Undefined when only the credential will say.
   */
  tunnelHost?: string
  tunnelPort?: number
  /** The tunnel user, when the options name it before any request (the URLs use it). */
  knownUser?: KnownUser
}

/**
 * What main saves for post, as the contract sees it: each kind saves its own shape (its Saved
 * type; the union is the registry's SavedCredential), nothing secret.
 */
export interface SavedRecord {
  kind: KindName
}

/** `Saved`: the shape the kind saves for post. */
export interface ObtainContext<Saved extends SavedRecord = SavedRecord> {
  /** The service client, built only by kinds that call the service. */
  service(): CredentialService
  log: StepLog
  /** Registers secrets with the runner's masker before they could reach any line of the log. */
  mask(secrets: string[]): void
  save(saved: Saved): void
  /** Main revoked at once what it saved: nothing is left for post. */
  clearSaved(): void
  /**
   * Writes what was obtained to the runner. The kind calls it while it can still revoke the
   * credential, so a credential that cannot be handed over does not live on.
   */
  publish(obtained: Obtained): Promise<void>
  /** The one-message explanation of a failed request, for lines that report one. */
  explain(error: unknown): string
  /** Where key folders go: the host cleans it after the job. */
  tempRoot: string
  /** How messages name it: `RUNNER_TEMP`. */
  tempRootName: string
  /** Names uploaded keys. */
  run: RunIdentity
  /**
   * `share: create`: seal the credential for the run's other jobs (only cicd, which the options
   * check ensures), and leave it to the run once handed over; absent otherwise.
   */
  shareForRun?: ShareForRun
}

export interface RevokeContext {
  settings: PostSettings
  service(): CredentialService
  log: StepLog
  /** Where an SSH key folder must be. */
  tempRoot: string
  tempRootName: string
}

/** What post's revoke did with a record it could act on. */
export type RevokedAs = 'revoked' | 'kept' | 'nothing'

/** What main writes to the runner once the credential is in hand. */
export interface Obtained {
  /** Variables for later steps, without the prefix: `TUNNEL_USER` becomes `SVC_TUNNEL_USER`. */
  env: Record<string, string>
  outputs: Record<string, string>
  /** Field and value rows of the job summary's table; empty values are left out. */
  summary: [string, string][]
  /** The closing line of main's log, e.g. "Provisioned tunnel user ab12c for host:2223". */
  announcement: string
  /** How the expose tunnel logs in with this credential. */
  login: TunnelLogin
}

/** `share: create`: what the cicd kind needs to seal what it provisions for the run. */
export interface ShareForRun {
  scope: ShareScope
  /** How messages name ttl-minutes and share where the user sets them. */
  label(name: string): string
}

/** What a tunnel client (the expose keeper) needs to log in: a token as password, or a key file. */
export interface TunnelLogin {
  kind: KindName
  user: string
  host: string
  port: number
  secret: { type: 'password'; token: string } | { type: 'key-file'; path: string }
  /** When the credential dies, and the tunnel with it; absent when unknown or never. */
  expiresAt?: string
  /** What to tell the user about how long a tunnel can live with this credential, if it is short. */
  lifetimeNote?: string
  /** Set when the options named the user rather than the service. */
  userFrom?: UserOption
  /** What the service's answer says about public URLs; absent or empty in the spec's shape. */
  answerUrl?: Pick<AnswerUrlFields, 'tunnelFqdn' | 'appendUserToSubdomain'>
}
