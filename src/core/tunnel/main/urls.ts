/**
 * The public URLs `url-template` forms (pure): each must be a URL whose host a browser can reach,
 * so the action never outputs an address that cannot work. Checked before the first request
 * where the inputs already give the tunnel host, and again with what the credential says.
 */
import { isIP } from 'node:net'
import { DEFAULT_TUNNEL_PORT } from '../../service/credential.js'
import { ExplainedError } from '../../errors.js'
import type { MainSettings } from '../../kinds/registry.js'
import type { TunnelLogin, UserOption } from '../../kinds/kind.js'
import { printable } from '../../text/printable.js'
import { quote } from '../../text/quote.js'
import { formatUrl, type TunnelSettings } from '../../settings/expose.js'
import { capitalised } from '../../settings/option-values.js'

type OptionLabel = (name: string) => string

/** What fills the template, and where its user name came from, for the advice in a message. */
export interface UrlTarget {
  user: string
  host: string
  port: number
  /** The option that names the tunnel user, when one does (ssh-key: client-id). */
  userFrom?: UserOption
  /** The user is a stand-in for one the service will name, so no message blames it. */
  standIn?: boolean
}

/** A URL that cannot work; `showsUrl` when the message quotes the URL, and so the user in it. */
class UrlError extends ExplainedError {
  constructor(
    message: string,
    readonly showsUrl: boolean
  ) {
    super(message)
  }
}

const LABEL_CHARACTERS = /^[a-z0-9-]*$/
const STAND_IN_USER = 'u'

/** Public URLs by entry name, in the order of `expose`; an ExplainedError if one cannot work. */
export function urlsFor(
  tunnel: TunnelSettings,
  target: UrlTarget,
  label: OptionLabel
): Record<string, string> {
  const urls: Record<string, string> = {}
  for (const entry of tunnel.entries) {
    const { user, host, port } = target
    const url = formatUrl(tunnel.urlTemplate, { name: entry.name, user, host, port })
    if (url === undefined) throw noUrl(tunnel.urlTemplate, entry.name, target.host, label)
    const problem = hostProblem(tunnel.urlTemplate, new URL(url).hostname)
    if (problem !== undefined) throw badHost(url, entry.name, problem, target, label)
    urls[entry.name] = url
  }
  return urls
}

/** What a credential's login fills the template with. */
export function targetOf(login: TunnelLogin): UrlTarget {
  const { user, host, port, userFrom } = login
  return { user, host, port, ...(userFrom && { userFrom }) }
}

/**
 * Before the first request: when the inputs give the tunnel host, the template is tried with it,
 * so a URL that cannot work fails the step before a credential is issued or a key uploaded.
 * The tunnel user is known for ssh-key and existing; for the others a plain name stands in.
 */
export function checkUrlsBeforeRequest(settings: MainSettings): void {
  if (settings.tunnel === undefined || settings.tunnelHost === undefined) return
  const port = settings.tunnelPort ?? DEFAULT_TUNNEL_PORT
  const known = 'knownUser' in settings ? settings.knownUser : undefined
  const target: UrlTarget = known
    ? { user: known.name, host: settings.tunnelHost, port, userFrom: known.from }
    : // One letter: any real user is as long or longer, so this fails only where all would.
      { user: STAND_IN_USER, host: settings.tunnelHost, port, standIn: true }
  try {
    urlsFor(settings.tunnel, target, settings.optionLabel)
  } catch (error) {
    if (!(error instanceof UrlError)) throw error
    const standIn =
      target.standIn === true && error.showsUrl
        ? ` (The service names the tunnel user; "${STAND_IN_USER}" stood in for it here.)`
        : ''
    throw new ExplainedError(
      `${error.message} Nothing was requested from the credential service.${standIn}`
    )
  }
}

/**
 * Why `hostname` (as `new URL()` gives it: lower-case, IDNs in punycode) is no host name a URL
 * can be served at; undefined when it is fine. An IP address is fine, unless the template builds
 * it from {name} or {user}, which would make each entry's address a different, made-up one.
 */
export function hostProblem(template: string, hostname: string): string | undefined {
  const host = hostname.replace(/^\[(.*)\]$/, '$1')
  if (isIP(host) !== 0) {
    const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(template)?.[1] ?? ''
    return /\{(name|user)\}/.test(authority)
      ? `it is an IP address built from {name} or {user}`
      : undefined
  }
  const name = host.endsWith('.') ? host.slice(0, -1) : host
  if (name.length > 253)
    return `it is ${name.length} characters long, and a host name has at most 253`
  for (const label of name.split('.')) {
    const problem = labelProblem(label)
    if (problem !== undefined) return problem
  }
  return undefined
}

function labelProblem(label: string): string | undefined {
  const shown = `the label "${printable(label, 70)}"`
  if (label === '') return 'it has an empty label (two dots in a row, or a dot at its start)'
  if (label.length > 63)
    return `${shown} is ${label.length} characters long, and a label has at most 63`
  if (!LABEL_CHARACTERS.test(label)) {
    const character = [...label].find(c => !/[a-z0-9-]/.test(c)) ?? ''
    return `${shown} holds ${characterName(character)}, which a host name cannot`
  }
  if (label.startsWith('-') || label.endsWith('-')) {
    return `${shown} ${label.startsWith('-') ? 'starts' : 'ends'} with a hyphen, which a host name cannot`
  }
  return undefined
}

function characterName(character: string): string {
  if (character === '_') return 'an underscore'
  if (character === '%') return 'a percent sign'
  return `the character "${printable(character, 12)}"`
}

function noUrl(template: string, name: string, host: string, label: OptionLabel): UrlError {
  const why =
    isIP(host) === 0
      ? ''
      : isIP(host) === 4
        ? ': the tunnel host is an IPv4 address, which cannot be one part of a longer host name'
        : ': the tunnel host is an IPv6 address, which a URL holds only in square brackets'
  return new UrlError(
    `${capitalised(label('url-template'))} ${quote(template, 120)} does not form a URL for "${name}" with tunnel host ${host}${why}. ` +
      `Set ${label('url-template')} to the form of the addresses your tunnel server serves forwards at (with an IP address, ` +
      `as in http://{host}:8080/{name}, or http://[{host}]/{name} for IPv6), or set ${label('tunnel-host')} to its host name.`,
    false
  )
}

function badHost(
  url: string,
  name: string,
  problem: string,
  target: UrlTarget,
  label: OptionLabel
): UrlError {
  // The user is to blame when a label that holds it is a bad one.
  const user = target.user.toLowerCase()
  const fromUser =
    target.standIn !== true &&
    new URL(url).hostname
      .split('.')
      .some(label => label.includes(user) && labelProblem(label) !== undefined)
  const keepUserOut = `change ${label('url-template')} so that {user} is not part of the host name`
  const from = target.userFrom
  const advice = !fromUser
    ? `Change ${label('url-template')} so that every dot-separated label of the host is letters, digits and inner hyphens.`
    : from?.changeable
      ? `The tunnel user comes from ${from.label}: set it to lower-case letters, digits and inner hyphens, or ${keepUserOut}.`
      : from
        ? `The tunnel user comes from ${from.label}, and your token belongs to it: ${keepUserOut}.`
        : `The tunnel user ${quote(target.user, 120)} comes from the credential service: ${keepUserOut}.`
  return new UrlError(
    `${capitalised(label('url-template'))} forms ${quote(url, 120)} for "${name}", whose host is not a valid host name: ${problem}. ${advice}`,
    true
  )
}
