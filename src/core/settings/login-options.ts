/**
 * The options a kind reads to log in to the tunnel: the API key, tunnel-host, tunnel-port, a
 * tunnel user and the tunnel token. Each kind reads those it needs; an error names the option and the kind.
 */
import { ExplainedError } from '../errors.js'
import { DEFAULT_TUNNEL_PORT } from '../service/credential.js'
import type { OptionSource } from '../host.js'
import { hasUnsafeCharacter } from '../text/printable.js'
import { holdsSecret } from '../service/answer-secrets.js'
import { isBareHost } from '../text/validators.js'
import { holdsCommandMarker } from '../text/log-commands.js'
import { optionNamed, readWholeNumber } from './option-values.js'
import { quote } from '../text/quote.js'
import { API_KEY_OPTION, TUNNEL_TOKEN_OPTION } from '../options/option-facts.js'

const API_KEY_PATTERN = /^sk_[0-9a-f]{64}$/i

/** A tunnel user named by an option, and which. */
export interface KnownUser {
  name: string
  from: UserOption
}

/** The option a tunnel user comes from, for the advice when a URL built from it cannot work. */
export interface UserOption {
  /** As the host names it: `input client-id`, `--client-id`. */
  label: string
  /** False when the user cannot be changed on its own: a token belongs to its user. */
  changeable: boolean
}

/** The API key of a kind that needs one; an error never quotes it. */
export function readApiKey(options: OptionSource, kind: string): string {
  const apiKey = options.read(API_KEY_OPTION).trim()
  const name = optionNamed(options, API_KEY_OPTION)
  if (!apiKey) {
    throw new ExplainedError(
      `${name} is empty, and ${options.label('credential')} is "${kind}", which needs it. ` +
        'If it comes from a secret: CI systems withhold secrets from some runs (on GitHub, workflows run from forks and Dependabot), ' +
        `so the secret reads as empty there. Set ${options.label('credential')} to auto to fall back to a free 5-minute credential in that case.`
    )
  }
  if (!API_KEY_PATTERN.test(apiKey)) {
    // Never quote the value: it is a secret, even when malformed.
    throw new ExplainedError(
      `${name} is not an API key: expected sk_ followed by 64 hexadecimal characters. ` +
        'Check that the secret holds the whole key, with no quotes or extra text.'
    )
  }
  return apiKey
}

/** Undefined when empty: the service's answer names the host then. */
export function readTunnelHost(options: OptionSource): string | undefined {
  const value = options.read('tunnel-host').trim()
  if (!value) return undefined
  if (!isBareHost(value)) {
    throw new ExplainedError(
      `${optionNamed(options, 'tunnel-host')} is ${quote(value)}: expected a bare hostname or IP address, without scheme, port or path.`
    )
  }
  return value
}

export function readTunnelPort(options: OptionSource): number | undefined {
  return readWholeNumber(options, 'tunnel-port', 1, 65535)
}

/** The tunnel server as the options name it, checked; either part may be missing. */
export interface NamedTunnelServer {
  host?: string
  port?: number
}

export function readTunnelServer(options: OptionSource): NamedTunnelServer {
  return { host: readTunnelHost(options), port: readTunnelPort(options) }
}

/**
 * For a kind whose credential names no server: the host must be set (`why` says where it must
 * come from), and the port defaults to the service's 2223.
 */
export function requireTunnelServer(
  server: NamedTunnelServer,
  options: OptionSource,
  kind: string,
  why: string
): { tunnelHost: string; tunnelPort: number } {
  if (!server.host) {
    throw new ExplainedError(
      `${optionNamed(options, 'tunnel-host')} is empty, and credential is "${kind}", which needs it: ${why}`
    )
  }
  return { tunnelHost: server.host, tunnelPort: server.port ?? DEFAULT_TUNNEL_PORT }
}

/** The token is a secret: an error says what is wrong with it and never shows it. */
export function readTunnelToken(options: OptionSource, kind: string): string {
  const value = options.read(TUNNEL_TOKEN_OPTION).trim()
  const name = optionNamed(options, TUNNEL_TOKEN_OPTION)
  if (!value) {
    throw new ExplainedError(
      `${name} is empty, and credential is "${kind}", which needs it: pass the token you already hold, from a secret.`
    )
  }
  // It is written to GITHUB_ENV as KEY=value; a line break would let it write other variables.
  if (hasUnsafeCharacter(value)) {
    throw new ExplainedError(
      `${name} holds whitespace or control characters: check that the secret holds the token alone, on one line.`
    )
  }
  return value
}

/**
 * A tunnel user the options name (not the service). A user name is exported unmasked, printed
 * and echoed by later steps: one clean word, with nothing the runner reads as a workflow command,
 * and not the secret it goes with. `whatItIs` ends the message of an empty option: "set it to
 * ...". Returns where it came from too, so that a message about a URL built from it can say which
 * option to change; `changeable` is false for a user a token belongs to.
 */
export function readTunnelUser(
  options: OptionSource,
  name: string,
  kind: string,
  whatItIs: string,
  { changeable, secrets = [] }: { changeable: boolean; secrets?: string[] }
): KnownUser {
  const value = options.read(name).trim()
  const label = optionNamed(options, name)
  if (!value) {
    throw new ExplainedError(
      `${label} is empty, and credential is "${kind}", which needs it: set it to ${whatItIs}.`
    )
  }
  if (holdsSecret(value, secrets)) {
    // Not quoted: it holds the token, or a long piece of it.
    throw new ExplainedError(
      `${label} holds the ${TUNNEL_TOKEN_OPTION}, or a long piece of it: check that the two inputs are not swapped.`
    )
  }
  if (value.length > 200 || hasUnsafeCharacter(value) || holdsCommandMarker(value)) {
    throw new ExplainedError(
      `${label} is ${quote(value)}: expected a user name without spaces, control characters or log command markers ("::", or "#" followed by "#[" or "#vso[").`
    )
  }
  return { name: value, from: { label: options.label(name), changeable } }
}

/** How a kind whose credential names neither its server nor its user describes the two options. */
export interface SelfNamedLogin {
  kind: string
  /** The option that names the tunnel user, and what it is ("set it to ..."). */
  userOption: string
  whatTheUserIs: string
  /** False for a user a token belongs to. */
  userChangeable: boolean
  /** Why tunnel-host must be set ("set it to ..."). */
  whyTheHost: string
}

/**
 * The tunnel server and user, both from the options (ssh-key, existing): the host is required,
 * the port defaults to 2223, and the user must not hold any of `secrets`.
 */
export function readSelfNamedLogin(
  options: OptionSource,
  login: SelfNamedLogin,
  secrets: string[] = []
): { knownUser: KnownUser; tunnelHost: string; tunnelPort: number } {
  const server = readTunnelServer(options)
  const knownUser = readTunnelUser(options, login.userOption, login.kind, login.whatTheUserIs, {
    changeable: login.userChangeable,
    secrets
  })
  return { knownUser, ...requireTunnelServer(server, options, login.kind, login.whyTheHost) }
}
