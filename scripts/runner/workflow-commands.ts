/**
 * Recognises `::name key=value,key=value::message` lines as the runner does: only registered
 * command names count, leading spaces are ignored, and `%`-escapes are undone (message:
 * %25 %0D %0A; properties also %3A %2C). `::stop-commands::TOKEN` turns recognition off
 * until a `::TOKEN::` line.
 */

export interface WorkflowCommand {
  name: string
  properties: Record<string, string>
  message: string
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

// '%25' is undone last so that an escaped '%0A' ('%250A') stays the text '%0A'.
function unescapeData(s: string): string {
  return s.replaceAll('%0D', '\r').replaceAll('%0A', '\n').replaceAll('%25', '%')
}

function unescapeProperty(s: string): string {
  return s
    .replaceAll('%0D', '\r')
    .replaceAll('%0A', '\n')
    .replaceAll('%3A', ':')
    .replaceAll('%2C', ',')
    .replaceAll('%25', '%')
}

export function parseWorkflowCommand(line: string): WorkflowCommand | undefined {
  const text = line.trimStart()
  if (!text.startsWith('::')) return undefined
  const end = text.indexOf('::', 2)
  if (end < 0) return undefined
  const info = text.slice(2, end)
  const space = info.indexOf(' ')
  const name = space < 0 ? info : info.slice(0, space)
  if (!REGISTERED.has(name)) return undefined
  const properties: Record<string, string> = {}
  if (space > 0) {
    for (const pair of info
      .slice(space + 1)
      .trim()
      .split(',')) {
      const eq = pair.indexOf('=')
      if (pair === '' || eq < 0) continue
      properties[pair.slice(0, eq)] = unescapeProperty(pair.slice(eq + 1))
    }
  }
  return { name, properties, message: unescapeData(text.slice(end + 2)) }
}

/** Follows `stop-commands` across a stream of lines; returns the command a line holds, if any. */
export function createCommandReader(): (line: string) => WorkflowCommand | undefined {
  let stopToken: string | undefined
  return line => {
    if (stopToken !== undefined) {
      if (line.trimStart() === `::${stopToken}::`) stopToken = undefined
      return undefined
    }
    const command = parseWorkflowCommand(line)
    if (command?.name === 'stop-commands') stopToken = command.message
    return command
  }
}
