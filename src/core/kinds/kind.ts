import type { KindName, MainSettings, PostSettings } from '../settings/inputs.js'
import type { RunIdentity, StepLog } from '../host.js'
import type { CredentialService } from '../service/client.js'

export type { StepLog }

/**
 * A credential kind is a strategy: it knows how to obtain its credential (main), what to publish
 * to the runner, and how to give the credential back (post). main.ts and post.ts only route.
 */
export interface CredentialKind<Settings extends MainSettings, Saved extends SavedCredential> {
  /**
   * Obtains the credential and publishes it (context.publish). Saves what post needs before
   * anything can fail halfway, and gives back at once a credential it cannot hand over.
   */
  obtain(settings: Settings, context: ObtainContext): Promise<Obtained>
  /** Post's side: revokes what main obtained, or says why there is nothing to do. Throws on failure. */
  giveBack(saved: Saved, context: GiveBackContext): Promise<void>
  /** How post's messages name the credential, e.g. "the tunnel token of user ab12c". */
  describe(saved: Saved): string
}

/** What main saves for post, one shape per kind. Nothing secret: no token, no key. */
export type SavedCredential = SavedToken | SavedSshKey | SavedExisting

/** What every kind that calls the service saves besides what names its credential. */
interface SavedIssued {
  /** Where main sent the key; post only compares it with its own base-url input. */
  baseUrl?: string
  expiresAt?: string
  /** Issued, then refused by main: post revokes it even with `revoke: false`. */
  rejected?: boolean
}

export interface SavedToken extends SavedIssued {
  kind: 'cicd' | 'free'
  tunnelUser: string
}

export interface SavedSshKey extends SavedIssued {
  kind: 'ssh-key'
  /** Absent while the upload is under way or when its answer was lost: post then goes by fingerprint. */
  keyId?: string
  /** Computed on the runner: it finds every record of the key, whatever the service answered. */
  fingerprint: string
  /** The name the key was uploaded under, for the message that asks to revoke it by hand. */
  keyName?: string
  /** A retried upload may have left other records of the key: post looks them up by fingerprint. */
  mayHaveCopies?: boolean
  /** The folder that holds the private key file; absent until it is made. */
  keyFolder?: string
  /** That folder's device and inode, so post deletes in it only while it is still the same one. */
  keyFolderId?: string
}

export interface SavedExisting {
  kind: 'existing'
  tunnelUser: string
}

export interface ObtainContext {
  /** The service client, built only by kinds that call the service. */
  service(): CredentialService
  log: StepLog
  /** Registers secrets with the runner's masker before they could reach any line of the log. */
  mask(secrets: string[]): void
  save(saved: SavedCredential): void
  /** Main gave back at once what it saved: nothing is left for post. */
  clearSaved(): void
  /**
   * Writes what was obtained to the runner. The kind calls it while it can still give the
   * credential back, so a credential that cannot be handed over does not live on.
   */
  publish(obtained: Obtained): Promise<void>
  /** The one-message explanation of a failed request, for lines that report one. */
  explain(error: unknown): string
  /** Where key folders go: the host cleans it after the job. */
  tempRoot: string
  /** Names uploaded keys. */
  run: RunIdentity
}

export interface GiveBackContext {
  settings: PostSettings
  service(): CredentialService
  log: StepLog
  /** Where an SSH key folder must be. */
  tempRoot: string
}

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

/** What a tunnel client (the expose keeper) needs to log in: a token as password, or a key file. */
export interface TunnelLogin {
  kind: KindName
  user: string
  host: string
  port: number
  secret: { type: 'password'; token: string } | { type: 'key-file'; path: string }
  /** When the credential dies, and the tunnel with it; absent when unknown or never. */
  expiresAt?: string
}
