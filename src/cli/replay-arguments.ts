/**
 * `replay`'s own command line: FILE.har, `--to`, the filters and a timeout. Flags only, no
 * variables: replay reads nothing of the environment, so no SVC_ value (a secret among them)
 * can reach a request it sends. Usage errors quote only what cannot be a secret.
 */
import { UsageError } from './arguments.js'

export interface ReplayArguments {
  harFile: string
  to: URL
  /** 1-based entry numbers to replay; undefined for all. */
  indexes?: Set<number>
  /** Upper-case methods to replay; undefined for all. */
  methods?: Set<string>
  /** A path prefix (the query is not part of it); undefined for all. */
  pathPrefix?: string
  timeoutMs: number
}

/** replay's own flags: they take no SVC_ variable, so the options table does not hold them. */
export const REPLAY_FLAGS = ['to', 'index', 'method', 'path', 'timeout-seconds'] as const
type ReplayFlag = (typeof REPLAY_FLAGS)[number]

const DEFAULT_TIMEOUT_SECONDS = 30

/** `argv` after the word `replay`. */
export function parseReplayArguments(argv: string[]): ReplayArguments {
  const files: string[] = []
  const flags = new Map<ReplayFlag, string>()
  for (let index = 0; index < argv.length; index++) {
    const token = argv[index]
    if (!token.startsWith('--')) {
      files.push(token)
      continue
    }
    const equals = token.indexOf('=')
    const name = (equals === -1 ? token : token.slice(0, equals)).slice(2)
    const flag = REPLAY_FLAGS.find(known => known === name)
    if (flag === undefined) {
      const shown = /^[A-Za-z][A-Za-z0-9-]{0,39}$/.test(name) ? `"--${name}"` : 'An argument'
      throw new UsageError(
        `${shown} is not an option of replay: use --to, --index, --method, --path or --timeout-seconds.`
      )
    }
    if (flags.has(flag)) throw new UsageError(`--${flag} is given twice.`)
    const value = equals === -1 ? argv[++index] : token.slice(equals + 1)
    if (value === undefined || (equals === -1 && value.startsWith('--'))) {
      throw new UsageError(`--${flag} needs a value.`)
    }
    flags.set(flag, value)
  }
  if (files.length !== 1) {
    throw new UsageError('replay takes one HAR file: replay FILE.har --to http://127.0.0.1:3000')
  }
  const to = flags.get('to')
  if (to === undefined) {
    throw new UsageError('replay needs --to, the app to send to, e.g. --to http://127.0.0.1:3000')
  }
  return {
    harFile: files[0],
    to: parseTo(to),
    ...optional('indexes', flags.get('index'), parseIndexes),
    ...optional('methods', flags.get('method'), parseMethods),
    ...optional('pathPrefix', flags.get('path'), parsePathPrefix),
    timeoutMs: parseTimeout(flags.get('timeout-seconds')) * 1000
  }
}

function optional<K extends string, T>(
  key: K,
  value: string | undefined,
  parse: (value: string) => T
): Partial<Record<K, T>> {
  return value === undefined ? {} : ({ [key]: parse(value) } as Record<K, T>)
}

/**
 * An http(s) URL whose path is a prefix. No user:password (a command line is visible to every
 * process and kept in shell history), no query or fragment (the recorded query is the query).
 */
function parseTo(value: string): URL {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new UsageError(
      '--to is not a URL: give the app as http://HOST:PORT, e.g. http://127.0.0.1:3000'
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError('--to must be an http:// or https:// URL, e.g. http://127.0.0.1:3000')
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(
      '--to must not hold a user or password: a command line is visible to other processes.'
    )
  }
  if (url.search !== '' || url.hash !== '' || value.includes('?') || value.includes('#')) {
    throw new UsageError('--to must not hold a query or fragment: the recorded query is sent.')
  }
  return url
}

/** `1,3-5`: entry numbers as replay prints them, from 1. */
function parseIndexes(value: string): Set<number> {
  const indexes = new Set<number>()
  for (const part of value.split(',')) {
    const range = /^(\d{1,7})(?:-(\d{1,7}))?$/.exec(part.trim())
    const first = Number(range?.[1])
    const last = range?.[2] === undefined ? first : Number(range[2])
    if (range === null || first < 1 || last < first) {
      throw new UsageError('--index takes entry numbers from 1 and ranges, e.g. --index 1,3-5')
    }
    for (let index = first; index <= last; index++) indexes.add(index)
  }
  return indexes
}

/** `POST` or `POST,PUT`, in any case. */
function parseMethods(value: string): Set<string> {
  const methods = value.split(',').map(method => method.trim().toUpperCase())
  if (methods.some(method => !/^[A-Z][A-Z-]{0,19}$/.test(method))) {
    throw new UsageError('--method takes HTTP methods, e.g. --method POST or --method POST,PUT')
  }
  return new Set(methods)
}

/** A plain prefix of the path: `/webhooks/` selects `/webhooks/stripe`, not `/api/webhooks/`. */
function parsePathPrefix(value: string): string {
  if (!value.startsWith('/')) {
    throw new UsageError(
      '--path takes the start of a path, beginning with "/", e.g. --path /webhooks/'
    )
  }
  return value
}

function parseTimeout(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TIMEOUT_SECONDS
  const seconds = /^\d{1,4}(\.\d{1,3})?$/.test(value) ? Number(value) : NaN
  if (!(seconds > 0 && seconds <= 3600)) {
    throw new UsageError('--timeout-seconds takes a number of seconds above 0, at most 3600.')
  }
  return seconds
}
