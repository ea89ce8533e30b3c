/**
 * What main, post and the detached keeper share, and the one file both sides of the tunnel
 * import: the configuration main sends over IPC, the one report the keeper sends back, the record
 * (stats file) post reads, where those files are, and the timing each side counts on from the
 * other. The keeper's bundle holds this file and nothing of option or credential parsing: its
 * one import of the core is the options' request defaults, a leaf.
 */
import { createHmac } from 'node:crypto'
import { join } from 'node:path'
import { REQUEST_HANDLING_DEFAULTS as DEFAULTS } from '../options/request-handling-defaults.js'

/** One forward: the server serves `name`; the runner reaches the app at `host:port`. */
export interface ExposeEntry {
  name: string
  host: string
  port: number
}

/**
 * One trusted host key: its fingerprint, and its type when the pin was a known_hosts line. With
 * the type the keeper offers that key type first, as OpenSSH does, so a server that also holds a
 * key of another type shows the pinned one.
 */
export interface HostKeyPin {
  /** `SHA256:…`, as OpenSSH prints it. */
  fingerprint: string
  /** `ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-nistp256`, …; absent for a bare fingerprint. */
  keyType?: string
}

/** What the keeper records of each request it forwards (`log-requests`, `log-bodies`, `log-headers`). */
export interface RequestLogConfig {
  enabled: boolean
  /** Each body is cut at this many bytes; 0 keeps none. */
  bodyBytes: number
  /** `redacted`: the values of credential headers and of query parameters read REDACTED. */
  headers: 'redacted' | 'unredacted'
}

/** The request log's files: the HAR the user reads, and the keeper's working files beside it. */
export interface RequestLogFiles {
  /** The HAR 1.2 file (the `request-log` output); valid at any moment once the keeper is ready. */
  harPath: string
  /** Entries waiting to be written into the HAR; in the tunnel's folder, removed at the end. */
  spoolPath: string
  /** Counts and the latest rows for the summary (request-log/tally.ts), in the tunnel's folder. */
  tallyPath: string
}

/** The header an API client sends the gate's secret in, clear of the app's own Authorization. */
export const GATE_HEADER = 'X-Tunnel-Gate'
/** The path prefix a webhook URL carries the gate's secret in; the keeper strips it before the app. */
export const GATE_PATH_PREFIX = '/_tunnel-gate/'

/**
 * The cookie a browser gets from the gate once a navigation carried the secret: host-only, so
 * each entry's host gets its own. With an https URL the name takes the `__Host-` prefix, which a
 * browser accepts only from that very host, over TLS, for the whole site.
 */
export const GATE_COOKIE_NAME = 'tunnel-credentials-gate'
export const GATE_COOKIE_SECURE_NAME = `__Host-${GATE_COOKIE_NAME}`

/**
 * The gate cookie's value: derived from the secret, so the keeper needs no second secret and
 * main can mask it, yet it is not the secret, which never has to be kept by a browser.
 */
export function gateCookieValue(gateSecret: string): string {
  return createHmac('sha256', gateSecret).update('gate-cookie').digest('base64url')
}

/** The path the URL proof asks for; the nonce follows. No app is asked for it. */
export const PROOF_PATH_PREFIX = '/.well-known/tunnel-credentials-proof/'

/**
 * The keeper's answer to a proof request: only a process that holds the run's proofKey can give
 * it, so a server that echoes whatever it is sent cannot pass for this tunnel.
 */
export function proofAnswer(proofKey: string, entry: string, nonce: string): string {
  return createHmac('sha256', proofKey).update(`${entry}\n${nonce}`).digest('hex')
}

/**
 * One request main will make to prove a URL: the entry, the nonce (each try has its own), and
 * where main sends it: the URL's host as `new URL(url).host` gives it (lowercase, the port only
 * when not the scheme's default) and that default port (80 or 443). Main hands the keeper every
 * nonce it may ask with its configuration; the keeper answers each once, and only there.
 */
export interface ProofRequest {
  entry: string
  nonce: string
  host: string
  defaultPort: number
}

/** The proof's bounds, main's (url-proof.ts) and the keeper's, which keeps its nonces no longer. */
export const PROOF_WINDOW_MS = 20_000
export const PROOF_ATTEMPT_TIMEOUT_MS = 10_000
/**
 * The keeper answers no proof this long after its ready, even if main never said it was done:
 * main's last try starts within the window and ends within one try's limit; the rest is slack
 * for main's own steps between ready and its first try.
 */
export const PROOF_NONCES_KEPT_MS = PROOF_WINDOW_MS + PROOF_ATTEMPT_TIMEOUT_MS + 10_000

/**
 * What main tells the keeper over IPC after its configuration: the proof is over (proven or
 * failed), so no nonce is answered any more. Main then lets go of the channel, which says the
 * same to a keeper that missed the message.
 */
export type MainMessage = { type: 'proof-over' }

/** The options' defaults: a log without bodies, redacted, no gate, the proof on. */
export const DEFAULT_REQUEST_LOG: RequestLogConfig = {
  enabled: DEFAULTS.logRequests,
  bodyBytes: DEFAULTS.logBodies,
  headers: DEFAULTS.logHeaders
}
export const DEFAULT_PROTECT = DEFAULTS.protect
export const DEFAULT_PROVE_URL = DEFAULTS.proveUrl

/** What main sends the keeper over IPC (never on its command line or in its environment). */
export interface KeeperConfig {
  host: string
  port: number
  user: string
  /** The tunnel token: the SSH password (and the keyboard-interactive answer). */
  token?: string
  /** A private key file, for credentials that log in with a key instead of the token. */
  privateKeyPath?: string
  entries: ExposeEntry[]
  /** Host keys to trust; empty: trust the first key seen, and that one alone, and report it. */
  hostKeyPins: HostKeyPin[]
  /** The credential's expiry: no reconnecting after it. */
  expiresAt?: string
  /**
   * Where no runner ends leftover processes: the keeper ends by itself at this time (ISO), and
   * never reconnects after it. Absent on hosts that stop it themselves (GitHub's post step).
   */
  endAt?: string
  /** The keeper ends by itself once this process is gone (the CLI's `run`, say). */
  watchPid?: number
  /**
   * How messages name the host-key option where the user sets it (`input tunnel-host-key`,
   * `--tunnel-host-key`): the keeper has no option labels of its own. Default `tunnel-host-key`.
   */
  hostKeyOptionName?: string
  /** How messages name the expose option (`input expose`, `--expose`); default `expose`. */
  exposeOptionName?: string
  /** The request log; DEFAULT_REQUEST_LOG when absent. */
  requestLog?: RequestLogConfig
  /** The gate on every entry (`protect`); DEFAULT_PROTECT when absent. */
  protect?: boolean
  /** Prove each formed URL reaches this keeper (`prove-url`); DEFAULT_PROVE_URL when absent. */
  proveUrl?: boolean
  /**
   * The gate's per-run secret, made by main with a CSPRNG; present exactly when `protect` is on.
   * Only ever sent here, over IPC: never in the state, a log line, a command line or the HAR.
   */
  gateSecret?: string
  /**
   * The proof's per-run key, made by main with a CSPRNG; present exactly when `proveUrl` is on.
   * A request for PROOF_PATH_PREFIX + nonce is answered by the keeper itself, with
   * proofAnswer(proofKey, entry, nonce), which no other server can compute.
   */
  proofKey?: string
  /** The proof's requests main will make (ProofRequest); nothing else is answered as a proof. */
  proofRequests?: ProofRequest[]
  /** Where the request log goes: the HAR, and the spool and tally beside it; with requestLog on. */
  requestLogFiles?: RequestLogFiles
  /** Each entry's public base URL (`https://web-u1.host`), for the HAR's request URLs. */
  publicUrls?: Record<string, string>
  /** The tool's version, for the HAR's creator (launch.ts adds it: the keeper imports no version). */
  toolVersion?: string
  /** Bounds one attempt: connect, authenticate, and every forward accepted. */
  attemptTimeoutMs: number
  /** Attempts before the first ready; later reconnects go on while the credential is valid. */
  maxAttempts: number
  logPath: string
  statsPath: string
  /** The keeper stops when this file appears: a signal that works on every OS. */
  stopPath: string
}

/** `record`: the keeper could not write its stats file, without which post cannot stop it. */
export type FailureCause = 'host-key' | 'auth' | 'forward' | 'timeout' | 'connect' | 'record'

/** What the keeper tells main, once: ready with every forward, or why not. */
export type KeeperReport =
  | { type: 'ready'; fingerprint: string }
  | {
      type: 'failed'
      cause: FailureCause
      detail: string
      name?: string
      fingerprint?: string
      /** A refused forward: the server said it allows this many per tunnel user. */
      forwardLimit?: number
      /** A refused forward: the server said its name (`name`) is in use by another tunnel. */
      nameTaken?: true
    }

/** Written to statsPath on change and at exit; the post step reads it. */
export interface KeeperStats {
  pid: number
  startedAt: string
  readyAt?: string
  /** Last time the keeper wrote this file (at least every HEARTBEAT_MS while it runs). */
  updatedAt: string
  state: 'connecting' | 'ready' | 'reconnecting' | 'stopped' | 'ended'
  reconnects: number
  connections: number
  /** Bytes from the tunnel to the local apps (requests), and back (responses). */
  bytesIn: number
  bytesOut: number
  /** Every local connection that failed, including those the log only summarises. */
  localErrors: number
  /** Set when the keeper ended on its own, before post asked it to stop. */
  endedAt?: string
  endReason?: string
  /** When the tunnel was down and why, and each entry's app outages; absent from older keepers. */
  timeline?: TunnelTimeline
}

/** What the keeper saw during the job, for one line in post's summary and at the CLI's revoke. */
export interface TunnelTimeline {
  /** Each time the SSH connection was down after the first ready (ISO times; `to` absent: still down). */
  down: { from: string; to?: string; reason: string }[]
  /** Earlier down periods left out of `down` (only the latest 50 are kept); absent when none. */
  downOmitted?: number
  /**
   * Per entry: total and longest time its app could not be reached (from a failed local connect
   * until the next that worked; one still going on counts up to the record's updatedAt), and
   * the first forward that worked.
   */
  apps: Record<string, { unreachableMs: number; longestMs: number; firstForwardAt?: string }>
}

/**
 * The tunnel's files live in one fresh directory `tunnel-XXXXXX` directly under the host's temp
 * root. Saved state names only that directory and the pid, and post accepts a directory only of
 * this shape, so state written by someone else cannot make post write a file elsewhere.
 */
export const TUNNEL_DIR_PREFIX = 'tunnel-'

export interface TunnelFiles {
  /** The keeper's own log (and its stdout and stderr). */
  logPath: string
  /** Its counters, rewritten whole on change; see KeeperStats. */
  statsPath: string
  /** Post creates it to ask the keeper to stop. */
  stopPath: string
  /** The request log's spool and tally (RequestLogFiles), written only with the log on. */
  spoolPath: string
  tallyPath: string
}

export function tunnelFiles(dir: string): TunnelFiles {
  return {
    logPath: join(dir, 'tunnel.log'),
    statsPath: join(dir, 'stats.json'),
    stopPath: join(dir, 'stop'),
    spoolPath: join(dir, 'requests.spool'),
    tallyPath: join(dir, 'requests-tally.json')
  }
}

/** The keeper rewrites its record at least this often while it runs, changed or not. */
export const HEARTBEAT_MS = 5_000

/** How long post waits for the keeper to leave after asking, before it kills it. */
export const STOP_GRACE_MS = 5_000
/** How often the keeper looks for the stop file: well within STOP_GRACE_MS. */
export const STOP_FILE_CHECK_MS = 250

/** The longest pause between two connection attempts, before jitter (keeper/reconnect.ts). */
export const LONGEST_RECONNECT_DELAY_MS = 30_000
/** Each pause is moved by up to this fraction either way, so many keepers do not retry at once. */
export const RECONNECT_JITTER = 0.25

/** The longest pause between two first attempts, jitter included, plus slack. */
const BETWEEN_ATTEMPTS_MS = LONGEST_RECONNECT_DELAY_MS * (1 + RECONNECT_JITTER) + 1_000

/**
 * How long main waits for the keeper's report: every first attempt's time limit and the pauses
 * the keeper takes between them, plus slack for its start.
 */
export function readyWaitMs(attemptTimeoutMs: number, maxAttempts: number): number {
  return maxAttempts * attemptTimeoutMs + (maxAttempts - 1) * BETWEEN_ATTEMPTS_MS + 5_000
}
