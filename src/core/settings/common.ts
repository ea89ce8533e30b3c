/**
 * The options every kind shares: revoke, fail-on-revoke-error, env-prefix, export-env, the
 * request limits and base-url.
 */
import { isIP } from 'node:net'
import { ExplainedError } from '../errors.js'
import type { OptionSource } from '../host.js'
import { readTunnelSettings } from './expose.js'
import { optionNamed, readBoolean, readWholeNumber } from './option-values.js'
import { quote } from '../text/quote.js'
import { readCaFile } from '../service/extra-ca.js'
import type { CommonSettings, HttpSettings } from './types.js'

const ENV_PREFIX_PATTERN = /^[A-Z][A-Z0-9_]*$/

export function readCommonSettings(options: OptionSource): CommonSettings {
  return {
    revoke: readBoolean(options, 'revoke', true),
    failOnRevokeError: parseFailOnRevokeError(options),
    envPrefix: readEnvPrefix(options),
    exportEnv: readBoolean(options, 'export-env', true),
    http: readHttpSettings(options),
    tunnel: readTunnelSettings(options),
    optionLabel: name => options.label(name)
  }
}

/** Read on its own first in post, so that a bad other option can still fail the step if asked to. */
export function parseFailOnRevokeError(options: OptionSource): boolean {
  return readBoolean(options, 'fail-on-revoke-error', false)
}

export function readHttpSettings(options: OptionSource): HttpSettings {
  return {
    maxAttempts: readWholeNumber(options, 'max-attempts', 1, 10) ?? 3,
    timeoutSeconds: readWholeNumber(options, 'timeout-seconds', 1, 600) ?? 30,
    ...readCa(options)
  }
}

/** ca-file, read at once: a file that is not there fails before any request is sent. */
function readCa(options: OptionSource): { ca?: string } {
  const path = options.read('ca-file').trim()
  return path === '' ? {} : { ca: readCaFile(path, optionNamed(options, 'ca-file')) }
}

/**
 * The base URL must be https so the API key never crosses the network in clear text; plain http
 * is allowed only to this machine, for local testing.
 */
export function readBaseUrl(options: OptionSource): string {
  const name = optionNamed(options, 'base-url')
  const value = options.read('base-url').trim()
  if (!value) {
    throw new ExplainedError(
      `${name} is empty: set it to the credential service address, for example https://<your-service>/functions/v1.`
    )
  }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ExplainedError(`${name} is ${quote(value)}: not a URL. Expected https://host[/path].`)
  }
  if (url.username || url.password) {
    throw new ExplainedError(
      `${name} holds a user name or password: remove them; the API key is sent as a header.`
    )
  }
  if (url.search || url.hash) {
    throw new ExplainedError(`${name} is ${quote(value)}: remove the query string or fragment.`)
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
    throw new ExplainedError(
      `${name} is ${quote(value)}: it must use https. Plain http is accepted only for loopback hosts (localhost, 127.0.0.0/8, ::1), for local testing.`
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

function readEnvPrefix(options: OptionSource): string {
  const value = options.read('env-prefix').trim() || 'SVC'
  if (!ENV_PREFIX_PATTERN.test(value)) {
    throw new ExplainedError(
      `${optionNamed(options, 'env-prefix')} is ${quote(value)}: expected an upper-case letter followed by upper-case letters, digits or underscores, such as SVC.`
    )
  }
  return value
}
