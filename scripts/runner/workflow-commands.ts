/**
 * Recognises workflow commands in a line as the runner does, in both of its forms:
 * - `::name key=value,key=value::message` at the start of a line (after spaces), with
 *   `%`-escapes undone (message: %25 %0D %0A; properties also %3A %2C);
 * - the older `##[name key=value;key=value]message` anywhere in a line, with its own escapes
 *   (%3B %0D %0A %5D %25, in message and properties alike).
 * The `::` form is tried first. Only registered command names count, compared ignoring case; the
 * name is returned in lower case. `::stop-commands::TOKEN` turns recognition off until a command
 * named TOKEN, in either form and in any case (`::TOKEN::`, `##[token]`).
 */

export interface WorkflowCommand {
  name: string
  properties: Record<string, string>
  message: string
  /** True for the older `##[name]` form. */
  legacy?: boolean
}

const REGISTERED = new Set([
  'add-mask',
  'debug',
  'notice',
  'warning',
  'error',
  'group',
  'endgroup',
  'set-output',
  'save-state',
  'set-env',
  'add-path',
  'echo',
  'stop-commands',
  'add-matcher',
  'remove-matcher'
])

/** Undoes escapes in the order given, so that an escaped '%0A' ('%250A') stays the text '%0A'. */
function unescape(s: string, mappings: [string, string][]): string {
  return mappings.reduce((text, [escaped, plain]) => text.replaceAll(escaped, plain), s)
}

const DATA_ESCAPES: [string, string][] = [
  ['%0D', '\r'],
  ['%0A', '\n'],
  ['%25', '%']
]
const PROPERTY_ESCAPES: [string, string][] = [
  ['%0D', '\r'],
  ['%0A', '\n'],
  ['%3A', ':'],
  ['%2C', ','],
  ['%25', '%']
]
const LEGACY_ESCAPES: [string, string][] = [
  ['%3B', ';'],
  ['%0D', '\r'],
  ['%0A', '\n'],
  ['%5D', ']'],
  ['%25', '%']
]

function parseProperties(
  text: string,
  separator: string,
  escapes: [string, string][]
): Record<string, string> {
  const properties: Record<string, string> = {}
  for (const pair of text.split(separator)) {
    const eq = pair.indexOf('=')
    if (pair === '' || eq <= 0 || eq === pair.length - 1) continue
    properties[pair.slice(0, eq)] = unescape(pair.slice(eq + 1), escapes)
  }
  return properties
}

/** `registered` holds lower-case names; the stop token joins it while commands are stopped. */
function parseCommand(line: string, registered: Set<string>): WorkflowCommand | undefined {
  return parseCurrentForm(line, registered) ?? parseLegacyForm(line, registered)
}

function parseCurrentForm(line: string, registered: Set<string>): WorkflowCommand | undefined {
  const text = line.trimStart()
  if (!text.startsWith('::')) return undefined
  const end = text.indexOf('::', 2)
  if (end < 0) return undefined
  const info = text.slice(2, end)
  const space = info.indexOf(' ')
  const name = (space < 0 ? info : info.slice(0, space)).toLowerCase()
  if (!registered.has(name)) return undefined
  return {
    name,
    properties:
      space > 0 ? parseProperties(info.slice(space + 1).trim(), ',', PROPERTY_ESCAPES) : {},
    message: unescape(text.slice(end + 2), DATA_ESCAPES)
  }
}

function parseLegacyForm(line: string, registered: Set<string>): WorkflowCommand | undefined {
  const start = line.indexOf('##[')
  if (start < 0) return undefined
  const close = line.indexOf(']', start)
  if (close < 0) return undefined
  const info = line.slice(start + 3, close)
  const space = info.indexOf(' ')
  const name = (space < 0 ? info : info.slice(0, space)).toLowerCase()
  if (!registered.has(name)) return undefined
  return {
    name,
    properties: space > 0 ? parseProperties(info.slice(space + 1), ';', LEGACY_ESCAPES) : {},
    message: unescape(line.slice(close + 1), LEGACY_ESCAPES),
    legacy: true
  }
}

/** The command a line holds on its own, with commands not stopped. */
export function parseWorkflowCommand(line: string): WorkflowCommand | undefined {
  return parseCommand(line, REGISTERED)
}

/**
 * The runner refuses (fails the step on) a stop token that is empty, a command's name or
 * `pause-logging`, and keeps reading commands; a token anyone could guess would let any line resume.
 */
export function isValidStopToken(token: string): boolean {
  const name = token.toLowerCase()
  return token !== '' && !REGISTERED.has(name) && name !== 'pause-logging'
}

/** Follows `stop-commands` across a stream of lines; returns the command a line holds, if any. */
export function createCommandReader(): (line: string) => WorkflowCommand | undefined {
  let stopToken: string | undefined
  return line => {
    if (stopToken !== undefined) {
      const command = parseCommand(line, new Set([...REGISTERED, stopToken]))
      if (command?.name === stopToken) stopToken = undefined
      return undefined
    }
    const command = parseWorkflowCommand(line)
    if (command?.name === 'stop-commands' && isValidStopToken(command.message)) {
      stopToken = command.message.toLowerCase()
    }
    return command
  }
}
