/**
 * The tunnel's inputs, parsed and checked before anything is sent (pure): what to expose
 * (`expose`), how a forward's public URL is formed (`url-template`) and which server host keys
 * to trust (`tunnel-host-key`). Every error names the input, the entry and what it needs.
 */
import { isIP } from 'node:net'
import { isBareHost } from '../text/validators.js'
import { ExplainedError } from '../errors.js'
import { hasUnsafeCharacter } from '../text/printable.js'
import { quote } from '../text/quote.js'
import type { OptionSource } from '../host.js'
import { capitalised } from './option-values.js'
import { describeMarker, midLineMarkerIn } from '../text/log-commands.js'
import { fingerprintOf, keyTypeOf } from '../text/fingerprint.js'
import type { ExposeEntry, HostKeyPin } from '../tunnel/protocol.js'
import { readRequestHandlingSettings, type RequestHandlingSettings } from './request-handling.js'

/** What the tunnel needs from the inputs; absent when `expose` is empty. */
export interface TunnelSettings extends RequestHandlingSettings {
  entries: ExposeEntry[]
  urlTemplate: string
  /** Trusted host keys; empty: accept the first key seen and say which one. */
  hostKeyPins: HostKeyPin[]
}

export const DEFAULT_URL_TEMPLATE = 'https://{name}-{user}.{host}'
/** The name a bare `PORT` gets when it is the only entry. */
const DEFAULT_ENTRY_NAME = 'app'
const DEFAULT_TARGET_HOST = 'localhost'

const NAME_PATTERN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/
const PLACEHOLDERS = ['name', 'user', 'host', 'port'] as const
type Placeholder = (typeof PLACEHOLDERS)[number]
type OptionLabel = OptionSource['label']

/** Reads `expose`: entries one per line or comma-separated. Empty input: no entries. */
export function parseExpose(raw: string, label: OptionLabel): ExposeEntry[] {
  const texts = raw
    .split(/[\n,]/)
    .map(text => text.trim())
    .filter(text => text !== '')
  const entries = texts.map(text =>
    naming(label('expose'), 'entry', () => parseEntry(text, texts.length))
  )
  const seen = new Set<string>()
  for (const entry of entries) {
    if (seen.has(entry.name)) {
      throw new ExplainedError(
        `${capitalised(label('expose'))} names "${entry.name}" more than once: each entry needs its own name, because the name is its public address.`
      )
    }
    seen.add(entry.name)
  }
  return entries
}

function parseEntry(text: string, count: number): ExposeEntry {
  const equals = text.indexOf('=')
  if (equals === -1) {
    if (/^\d+$/.test(text) && count > 1) {
      throw entryError(
        text,
        `a bare port is allowed only when it is the only entry; give it a name, as in app=${text}`
      )
    }
    if (!/^\d+$/.test(text)) {
      throw entryError(text, 'expected NAME=PORT, NAME=HOST:PORT, or a bare PORT')
    }
    return { name: DEFAULT_ENTRY_NAME, host: DEFAULT_TARGET_HOST, port: parsePort(text, text) }
  }
  const name = text.slice(0, equals).trim()
  const target = text.slice(equals + 1).trim()
  if (!NAME_PATTERN.test(name)) {
    throw entryError(
      text,
      'the name must be a lower-case DNS label: letters a-z, digits and inner dashes, 1 to 63 characters'
    )
  }
  return { name, ...parseTarget(target, text) }
}

/** `PORT`, `HOST:PORT` or `[IPv6]:PORT`. */
function parseTarget(target: string, entry: string): { host: string; port: number } {
  if (/^\d+$/.test(target)) return { host: DEFAULT_TARGET_HOST, port: parsePort(target, entry) }
  const bracketed = /^\[([^\]]+)\]:(\d+)$/.exec(target)
  if (bracketed) {
    if (isIP(bracketed[1]) !== 6) {
      throw entryError(entry, 'square brackets hold an IPv6 address, as in [::1]:3000')
    }
    return { host: bracketed[1], port: parsePort(bracketed[2], entry) }
  }
  const colon = target.lastIndexOf(':')
  const host = colon === -1 ? '' : target.slice(0, colon)
  const port = colon === -1 ? '' : target.slice(colon + 1)
  if (!host || !/^\d+$/.test(port)) {
    throw entryError(entry, 'after NAME= comes PORT or HOST:PORT, as in web=3000 or api=db:8080')
  }
  if (isIP(host) === 6) {
    throw entryError(entry, 'write an IPv6 address in square brackets, as in [::1]:3000')
  }
  if (!isBareHost(host)) {
    throw entryError(entry, `${JSON.stringify(host)} is not a host name or IP address`)
  }
  return { host, port: parsePort(port, entry) }
}

function parsePort(text: string, entry: string): number {
  const port = Number(text)
  if (!/^\d{1,5}$/.test(text) || port < 1 || port > 65535) {
    throw entryError(entry, 'the port must be a whole number from 1 to 65535')
  }
  return port
}

/** What is wrong with one entry or line; `naming` adds which option holds it. */
class PartProblem extends Error {
  constructor(
    readonly part: string,
    readonly needs: string
  ) {
    super(needs)
  }
}

/** Runs a parser of one part of an option, naming the option (as the host does) in its error. */
function naming<T>(optionLabel: string, partName: string, parse: () => T): T {
  try {
    return parse()
  } catch (error) {
    if (!(error instanceof PartProblem)) throw error
    throw new ExplainedError(
      `${capitalised(optionLabel)} has the ${partName} ${quote(error.part)}: ${error.needs}.`
    )
  }
}

function entryError(entry: string, needs: string): PartProblem {
  return new PartProblem(entry, needs)
}

/**
 * Checks `url-template` (empty: the default) and returns it. Checked with sample values, so a
 * template that cannot form an http(s) URL fails before any request is sent.
 */
export function parseUrlTemplate(raw: string, label: OptionLabel): string {
  const template = raw.trim() || DEFAULT_URL_TEMPLATE
  for (const [placeholder, inner] of template.matchAll(/\{([^{}]*)\}/g)) {
    if (!(PLACEHOLDERS as readonly string[]).includes(inner)) {
      throw new ExplainedError(
        `${capitalised(label('url-template'))} is ${quote(template)}: ${placeholder} is not a placeholder; use {name}, {user}, {host} and {port}.`
      )
    }
  }
  // Plain text to the URL parser, but log readers obey it anywhere in the line `Exposed …` prints.
  const marker = midLineMarkerIn(template)
  if (marker !== undefined) {
    throw new ExplainedError(
      `${capitalised(label('url-template'))} is ${quote(template)}: it holds ${describeMarker(marker)}, which the log reader of a CI system obeys as a command anywhere in a line. Remove it.`
    )
  }
  const sample = formatUrl(template, {
    name: 'app',
    user: 'user',
    host: 'tunnel.example',
    port: 22
  })
  if (sample === undefined) {
    throw new ExplainedError(
      `${capitalised(label('url-template'))} is ${quote(template)}: it does not form an http or https URL, as in ${DEFAULT_URL_TEMPLATE}.`
    )
  }
  return template
}

/**
 * Fills a checked template; undefined when the result is not an http(s) URL. The text is returned
 * as formed, not as `new URL()` rewrites it, so it must hold nothing the parser would drop.
 */
export function formatUrl(
  template: string,
  values: Record<Placeholder, string | number>
): string | undefined {
  const text = template.replace(/\{(name|user|host|port)\}/g, (_match, key: Placeholder) =>
    String(values[key])
  )
  if (hasUnsafeCharacter(text)) return undefined
  try {
    const url = new URL(text)
    return url.protocol === 'http:' || url.protocol === 'https:' ? text : undefined
  } catch {
    return undefined
  }
}

/**
 * Reads `tunnel-host-key`: lines of `SHA256:…` fingerprints or known_hosts lines (also the
 * `type base64` form of a .pub file). Returns the keys to trust; empty input: none.
 */
export function parseHostKeyPins(raw: string, label: OptionLabel): HostKeyPin[] {
  const pins: HostKeyPin[] = []
  for (const line of raw.split(/\r?\n/).map(text => text.trim())) {
    if (line === '' || line.startsWith('#')) continue
    const pin: HostKeyPin = naming(label('tunnel-host-key'), 'line', () =>
      line.startsWith('SHA256:')
        ? { fingerprint: parseFingerprint(line) }
        : parseKnownHostsLine(line)
    )
    const same = pins.find(known => known.fingerprint === pin.fingerprint)
    // The same key as a fingerprint and as a known_hosts line: keep the one that knows its type.
    if (same === undefined) pins.push(pin)
    else same.keyType ??= pin.keyType
  }
  return pins
}

/** `SHA256:` and 43 base64 characters (a SHA-256 digest without padding), as OpenSSH prints. */
function parseFingerprint(line: string): string {
  if (!/^SHA256:[A-Za-z0-9+/]{43}=?$/.test(line)) {
    throw pinError(
      line,
      'a fingerprint is SHA256: followed by 43 base64 characters, as `ssh-keygen -lf` prints it'
    )
  }
  return line.replace(/=$/, '')
}

function parseKnownHostsLine(line: string): HostKeyPin {
  const fields = line.split(/\s+/)
  if (fields[0].startsWith('@')) {
    throw pinError(
      line,
      `${fields[0]} lines are not supported; give the server's own key or its SHA256 fingerprint`
    )
  }
  // `hosts type base64 [comment]`, or `type base64 [comment]` as in a .pub file.
  const typeAt = isKeyType(fields[1]) ? 1 : isKeyType(fields[0]) ? 0 : -1
  const type = fields[typeAt]
  const encoded = fields[typeAt + 1]
  if (typeAt === -1 || encoded === undefined) {
    // \u2026 (an ellipsis) as an escape: one character outside ASCII in a bundle makes Node hold
    // the whole file as UTF-16, about 1.4 ms more on every step's start (__tests__/bundle.test.ts).
    throw pinError(
      line,
      'expected a SHA256:\u2026 fingerprint or a known_hosts line such as "[tunnel.example]:2223 ssh-ed25519 AAAA\u2026"'
    )
  }
  const blob = Buffer.from(encoded, 'base64')
  if (
    blob.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '') ||
    keyTypeOf(blob) !== type
  ) {
    throw pinError(line, `the key after ${type} is not a valid ${type} key in base64`)
  }
  return { fingerprint: fingerprintOf(blob), keyType: type }
}

const isKeyType = (field: string | undefined): boolean =>
  field !== undefined && /^(ssh-|ecdsa-sha2-|sk-)[a-z0-9@.-]+$/.test(field)

function pinError(line: string, needs: string): PartProblem {
  return new PartProblem(line, needs)
}

/** Reads all three inputs; undefined when `expose` is empty (no tunnel). */
export function readTunnelSettings(options: OptionSource): TunnelSettings | undefined {
  const label = (name: string) => options.label(name)
  const urlTemplate = parseUrlTemplate(options.read('url-template'), label)
  const hostKeyPins = parseHostKeyPins(options.read('tunnel-host-key'), label)
  const requestHandling = readRequestHandlingSettings(options)
  const entries = parseExpose(options.read('expose'), label)
  return entries.length === 0
    ? undefined
    : { entries, urlTemplate, hostKeyPins, ...requestHandling }
}
