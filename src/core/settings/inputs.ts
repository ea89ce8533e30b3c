import { isIP } from 'node:net'
import { ExplainedError } from '../errors.js'
import { holdsSecret } from '../service/answer-secrets.js'
import { DEFAULT_TUNNEL_PORT, isBareHost } from '../service/credential.js'
import { checkedInputs } from './input-text.js'
import { hasUnsafeCharacter } from '../text/printable.js'
import { quote } from '../text/quote.js'
import { holdsCommandMarker, LEGACY_COMMAND_MARKER } from '../text/workflow-command.js'
import { readTunnelSettings, type TunnelSettings } from './expose.js'

export type KindName = 'cicd' | 'free' | 'ssh-key' | 'existing'
export type CredentialChoice = KindName | 'auto'

/** What every kind's main step reads, whatever it obtains. */
export interface CommonSettings {
  revoke: boolean
  /** Read by post only, but checked here so a typo fails the job before a credential exists. */
  failOnRevokeError: boolean
  envPrefix: string
  exportEnv: boolean
  http: HttpSettings
  /** What to expose through the tunnel; absent when `expose` is empty (no tunnel). */
  tunnel?: TunnelSettings
}

/** A CI/CD token from credential-provision, with the API key. */
export interface CicdSettings extends CommonSettings {
  kind: 'cicd'
  apiKey: string
  project: string
  environment: string
  ttlMinutes?: number
  baseUrl: string
  tunnelHost?: string
  tunnelPort?: number
}

/** A free 5-minute token from create-ephemeral-token, without a key. */
export interface FreeSettings extends CommonSettings {
  kind: 'free'
  /** True when `auto` fell back to a free credential because no API key was given. */
  fellBackToFree: boolean
  baseUrl: string
  tunnelHost?: string
  tunnelPort?: number
}

/** An SSH key made on the runner and uploaded with keys-upload. */
export interface SshKeySettings extends CommonSettings {
  kind: 'ssh-key'
  apiKey: string
  /** The tunnel user an uploaded key logs in as; sent as client_id. */
  clientId: string
  baseUrl: string
  // The upload answer carries no host, so the workflow names it.
  tunnelHost: string
  tunnelPort: number
}

/** A token the workflow already holds: nothing is requested and nothing revoked. */
export interface ExistingSettings extends CommonSettings {
  kind: 'existing'
  tunnelToken: string
  tunnelUser: string
  tunnelHost: string
  tunnelPort: number
}

/** Everything the main step needs, read and checked in one place before any request is sent. */
export type MainSettings = CicdSettings | FreeSettings | SshKeySettings | ExistingSettings

/** What the post step reads from its inputs; saved state only names what to give back. */
export interface PostSettings {
  /** From the inputs, as main chose it, rather than from saved state that anyone could write. */
  kind: KindName
  apiKey: string
  /** From the input, never from saved state: the API key goes nowhere else. Absent for `existing`. */
  baseUrl?: string
  revoke: boolean
  failOnRevokeError: boolean
  http: HttpSettings
}

export interface HttpSettings {
  maxAttempts: number
  timeoutSeconds: number
}

/** Reads one input by its action.yml name; '' when unset. Injected so parsing stays pure. */
export type InputReader = (name: string) => string

const API_KEY_PATTERN = /^sk_[0-9a-f]{64}$/i
const ENV_PREFIX_PATTERN = /^[A-Z][A-Z0-9_]*$/
const CHOICES: CredentialChoice[] = ['cicd', 'free', 'auto', 'ssh-key', 'existing']

export function readMainSettings(read: InputReader): MainSettings {
  // Every value's text is checked before any parser sees it (see input-text.ts).
  const input = checkedInputs(read)
  const choice = parseChoice(input('credential'))
  const apiKey = input('api-key').trim()
  const kind = kindFor(choice, apiKey)
  const common: CommonSettings = {
    revoke: parseBoolean(input('revoke'), 'revoke', true),
    failOnRevokeError: parseFailOnRevokeError(input),
    envPrefix: parseEnvPrefix(input('env-prefix')),
    exportEnv: parseBoolean(input('export-env'), 'export-env', true),
    http: readHttpSettings(input),
    tunnel: readTunnelSettings(input)
  }
  const tunnelHost = parseTunnelHost(input('tunnel-host'))
  const tunnelPort = parseOptionalWholeNumber(input('tunnel-port'), 'tunnel-port', 1, 65535)

  switch (kind) {
    case 'cicd': {
      checkApiKey(apiKey, kind)
      const project = parseOneLine(input('project'), 'project')
      if (!project) {
        throw new ExplainedError(
          'Input project is empty: set it to the project slug to provision for.'
        )
      }
      return {
        ...common,
        kind,
        apiKey,
        project,
        environment: parseOneLine(input('environment'), 'environment'),
        ttlMinutes: parseOptionalWholeNumber(input('ttl-minutes'), 'ttl-minutes', 1),
        baseUrl: parseBaseUrl(input('base-url')),
        tunnelHost,
        tunnelPort
      }
    }
    case 'free':
      return {
        ...common,
        kind,
        fellBackToFree: choice === 'auto',
        baseUrl: parseBaseUrl(input('base-url')),
        tunnelHost,
        tunnelPort
      }
    case 'ssh-key':
      checkApiKey(apiKey, kind)
      return {
        ...common,
        kind,
        apiKey,
        clientId: parseTunnelUser(input('client-id'), 'client-id', kind),
        baseUrl: parseBaseUrl(input('base-url')),
        tunnelHost: requireTunnelHost(tunnelHost, kind),
        tunnelPort: tunnelPort ?? DEFAULT_TUNNEL_PORT
      }
    case 'existing': {
      const tunnelToken = parseTunnelToken(input('tunnel-token'))
      return {
        ...common,
        kind,
        tunnelToken,
        tunnelUser: parseTunnelUser(input('tunnel-user'), 'tunnel-user', kind, [tunnelToken]),
        tunnelHost: requireTunnelHost(tunnelHost, kind),
        tunnelPort: tunnelPort ?? DEFAULT_TUNNEL_PORT
      }
    }
  }
}

function checkApiKey(apiKey: string, kind: 'cicd' | 'ssh-key'): void {
  if (!apiKey) {
    throw new ExplainedError(
      `Input api-key is empty, and credential is "${kind}", which needs it. ` +
        'If it comes from a secret: secrets are not passed to workflows run from forks, nor to Dependabot, ' +
        'so the secret reads as empty there. Use `credential: auto` to fall back to a free 5-minute credential in that case.'
    )
  }
  if (!API_KEY_PATTERN.test(apiKey)) {
    // Never quote the value: it is a secret, even when malformed.
    throw new ExplainedError(
      'Input api-key is not an API key: expected sk_ followed by 64 hexadecimal characters. ' +
        'Check that the secret holds the whole key, with no quotes or extra text.'
    )
  }
}

function requireTunnelHost(tunnelHost: string | undefined, kind: 'ssh-key' | 'existing'): string {
  if (tunnelHost) return tunnelHost
  throw new ExplainedError(
    kind === 'ssh-key'
      ? 'Input tunnel-host is empty, and credential is "ssh-key", which needs it: the key upload answer names no tunnel server, so set it to the tunnel server\'s hostname.'
      : 'Input tunnel-host is empty, and credential is "existing", which needs it: set it to the hostname of the tunnel server your token is for.'
  )
}

/** The token is a secret: an error says what is wrong with it and never shows it. */
function parseTunnelToken(raw: string): string {
  const value = raw.trim()
  if (!value) {
    throw new ExplainedError(
      'Input tunnel-token is empty, and credential is "existing", which needs it: pass the token you already hold, from a secret.'
    )
  }
  // It is written to GITHUB_ENV as KEY=value; a line break would let it write other variables.
  if (hasUnsafeCharacter(value)) {
    throw new ExplainedError(
      'Input tunnel-token holds whitespace or control characters: check that the secret holds the token alone, on one line.'
    )
  }
  return value
}

/**
 * A user name is exported unmasked, printed and echoed by later steps: one clean word, with
 * nothing the runner reads as a workflow command, and not the secret it goes with.
 */
function parseTunnelUser(
  raw: string,
  name: 'client-id' | 'tunnel-user',
  kind: KindName,
  secrets: string[] = []
): string {
  const value = raw.trim()
  if (!value) {
    throw new ExplainedError(
      name === 'client-id'
        ? `Input client-id is empty, and credential is "${kind}", which needs it: set it to the tunnel user (client id) the uploaded key logs in as.`
        : `Input tunnel-user is empty, and credential is "${kind}", which needs it: set it to the tunnel user your token belongs to.`
    )
  }
  if (holdsSecret(value, secrets)) {
    // Not quoted: it holds the token, or a long piece of it.
    throw new ExplainedError(
      `Input ${name} holds the tunnel-token, or a long piece of it: check that the two inputs are not swapped.`
    )
  }
  if (value.length > 200 || hasUnsafeCharacter(value) || holdsCommandMarker(value)) {
    throw new ExplainedError(
      `Input ${name} is ${quote(value)}: expected a user name without spaces, control characters, "::" or "##[".`
    )
  }
  return value
}

export function readPostSettings(input: InputReader): PostSettings {
  const apiKey = input('api-key').trim()
  const kind = readPostKind(input)
  return {
    kind,
    apiKey,
    // `existing` sends no request, so base-url may be empty there.
    ...(kind !== 'existing' && { baseUrl: parseBaseUrl(input('base-url')) }),
    revoke: parseBoolean(input('revoke'), 'revoke', true),
    failOnRevokeError: parseFailOnRevokeError(input),
    http: readHttpSettings(input)
  }
}

/** The kind main chose, from the same inputs: post reads saved state as this kind. */
export function readPostKind(input: InputReader): KindName {
  return kindFor(parseChoice(input('credential')), input('api-key').trim())
}

/** Read on its own first in post, so that a bad other input can still fail the step if asked to. */
export function parseFailOnRevokeError(input: InputReader): boolean {
  return parseBoolean(input('fail-on-revoke-error'), 'fail-on-revoke-error', false)
}

function readHttpSettings(input: InputReader): HttpSettings {
  return {
    maxAttempts: parseOptionalWholeNumber(input('max-attempts'), 'max-attempts', 1, 10) ?? 3,
    timeoutSeconds:
      parseOptionalWholeNumber(input('timeout-seconds'), 'timeout-seconds', 1, 600) ?? 30
  }
}

function kindFor(choice: CredentialChoice, apiKey: string): KindName {
  return choice === 'auto' ? (apiKey ? 'cicd' : 'free') : choice
}

function parseChoice(raw: string): CredentialChoice {
  const value = raw.trim().toLowerCase() || 'cicd'
  if (CHOICES.includes(value as CredentialChoice)) return value as CredentialChoice
  throw new ExplainedError(
    `Input credential is ${quote(raw)}: expected one of cicd, free, auto, ssh-key or existing.`
  )
}

/**
 * The base URL must be https so the API key never crosses the network in clear text; plain http
 * is allowed only to this machine, for local testing.
 */
export function parseBaseUrl(raw: string): string {
  const value = raw.trim()
  if (!value) {
    throw new ExplainedError(
      'Input base-url is empty: set it to the credential service address, for example https://<your-service>/functions/v1.'
    )
  }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ExplainedError(
      `Input base-url is ${quote(value)}: not a URL. Expected https://host[/path].`
    )
  }
  if (url.username || url.password) {
    throw new ExplainedError(
      'Input base-url holds a user name or password: remove them; the API key is sent as a header.'
    )
  }
  if (url.search || url.hash) {
    throw new ExplainedError(
      `Input base-url is ${quote(value)}: remove the query string or fragment.`
    )
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
    throw new ExplainedError(
      `Input base-url is ${quote(value)}: it must use https. Plain http is accepted only for loopback hosts (localhost, 127.0.0.0/8, ::1), for local testing.`
    )
  }
  // A path of only slashes ('/', '//') is no path: the service's documented prefix applies.
  const path = url.pathname.replace(/\/+$/, '') || '/functions/v1'
  return `${url.protocol}//${url.host}${path}`
}

export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (host === 'localhost' || host === '::1') return true
  return isIP(host) === 4 && host.startsWith('127.')
}

function parseBoolean(raw: string, name: string, fallback: boolean): boolean {
  const value = raw.trim().toLowerCase()
  if (!value) return fallback
  if (value === 'true') return true
  if (value === 'false') return false
  throw new ExplainedError(`Input ${name} is ${quote(raw)}: expected true or false.`)
}

function parseOptionalWholeNumber(
  raw: string,
  name: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER
): number | undefined {
  const value = raw.trim()
  if (!value) return undefined
  const number = /^\d+$/.test(value) ? Number(value) : NaN
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    const range =
      max === Number.MAX_SAFE_INTEGER
        ? `a whole number of at least ${min}`
        : `a whole number from ${min} to ${max}`
    throw new ExplainedError(`Input ${name} is ${quote(raw)}: expected ${range}.`)
  }
  return number
}

/**
 * A value that is printed and sent as it is. Line breaks and control characters were refused with
 * the raw text (checkedInputs); `##[` is plain text, but the runner obeys it anywhere in a line.
 */
function parseOneLine(raw: string, name: string): string {
  const value = raw.trim()
  if (value.includes(LEGACY_COMMAND_MARKER)) {
    throw new ExplainedError(
      `Input ${name} is ${quote(value)}: it holds "##" followed by "[", which the runner reads as a workflow command anywhere in a line. Remove it.`
    )
  }
  return value
}

function parseTunnelHost(raw: string): string | undefined {
  const value = raw.trim()
  if (!value) return undefined
  if (!isBareHost(value)) {
    throw new ExplainedError(
      `Input tunnel-host is ${quote(value)}: expected a bare hostname or IP address, without scheme, port or path.`
    )
  }
  return value
}

function parseEnvPrefix(raw: string): string {
  const value = raw.trim() || 'SVC'
  if (!ENV_PREFIX_PATTERN.test(value)) {
    throw new ExplainedError(
      `Input env-prefix is ${quote(value)}: expected an upper-case letter followed by upper-case letters, digits or underscores, such as SVC.`
    )
  }
  return value
}
