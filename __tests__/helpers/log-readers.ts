/**
 * Models of what each supported CI system's log reader obeys in a line of a job's output, written
 * apart from src/core/text/log-commands.ts so that a test compares the code with an independent
 * reading. Each model errs on the side of obeying: a command it reports may be one the real
 * reader would skip, never the other way round.
 */

/** A line as the readers split output: .NET's ReadLine and the others end a line at CR or LF. */
export function readerLines(lines: string[]): string[] {
  return lines.flatMap(line => line.split(/\r\n|\r|\n/))
}

// Characters an older Azure agent's culture-aware search may skip; the models drop every
// character that is not printable ASCII before they look, and so obey more than a reader would.
const visible = (line: string) => line.replace(/[^\x20-\x7e]/g, '')

/** The `area.event` of every `##vso[area.event …]` in the line, in any case: what Azure runs. */
export function azureCommandsIn(line: string): string[] {
  const text = visible(line)
  const found: string[] = []
  for (const match of text.matchAll(/##vso\[([^\]]*)\]/gi)) {
    const name = match[1].split(' ')[0]
    if (/^[^.]+\.[^.]+$/.test(name)) found.push(name.toLowerCase())
  }
  // Azure's own formatting lines: `##[section]`, `##[group]`, `##[warning]`...
  for (const match of text.matchAll(/##\[([^\]]*)\]/g)) found.push(`format ${match[1]}`)
  return found
}

/** GitHub: `::name …::` after leading blanks, and `##[name]` anywhere. */
export function githubCommandsIn(line: string): string[] {
  const text = visible(line)
  const found: string[] = []
  const start = /^\s*::([A-Za-z-]+)/.exec(text)
  if (start) found.push(start[1].toLowerCase())
  for (const match of text.matchAll(/##\[([A-Za-z-]+)/g)) found.push(match[1].toLowerCase())
  return found
}

/** Buildkite: a group heading at the line's start; escape sequences (ESC) anywhere. */
export function buildkiteCommandsIn(line: string): string[] {
  const found: string[] = []
  const group = /^\s*(---|\+\+\+|~~~|\^\^\^)/.exec(visible(line))
  if (group) found.push(`group ${group[1]}`)
  if (line.includes('\u001b')) found.push('escape sequence')
  return found
}

/** GitLab: collapsible sections; Jenkins: console notes. Both need ESC, looked for anywhere. */
export function gitlabAndJenkinsCommandsIn(line: string): string[] {
  const found: string[] = []
  if (/section_(start|end):/i.test(visible(line))) found.push('section')
  if (line.includes('\u001b')) found.push('escape sequence')
  return found
}

/** Every command any supported reader would obey in any of the lines, as `system: command`. */
export function commandsObeyedIn(lines: string[]): string[] {
  return readerLines(lines).flatMap(line => [
    ...githubCommandsIn(line).map(command => `GitHub Actions: ${command}`),
    ...azureCommandsIn(line).map(command => `Azure Pipelines: ${command}`),
    ...buildkiteCommandsIn(line).map(command => `Buildkite: ${command}`),
    ...gitlabAndJenkinsCommandsIn(line).map(command => `GitLab CI or Jenkins: ${command}`)
  ])
}
