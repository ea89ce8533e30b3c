/**
 * Reads the files behind GITHUB_ENV, GITHUB_OUTPUT and GITHUB_STATE the way the runner does
 * after a step ends: `name=value` lines, or `name<<DELIMITER` followed by the value's lines
 * and a line holding only the delimiter. Empty lines between entries are skipped.
 */

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

export class FileCommandError extends Error {}

/** The runner's five file-command files, created empty in `dir`, keyed by their variable. */
export function createFileCommandFiles(dir: string) {
  const files = {
    GITHUB_ENV: join(dir, 'set_env'),
    GITHUB_OUTPUT: join(dir, 'set_output'),
    GITHUB_STATE: join(dir, 'save_state'),
    GITHUB_PATH: join(dir, 'add_path'),
    GITHUB_STEP_SUMMARY: join(dir, 'step_summary')
  }
  for (const file of Object.values(files)) writeFileSync(file, '')
  return files
}

export function parseFileCommand(text: string): Record<string, string> {
  const values: Record<string, string> = {}
  // The runner accepts both newline styles; a value keeps its inner line breaks as '\n'.
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    if (line === '') continue
    const equals = line.indexOf('=')
    const heredoc = line.indexOf('<<')
    // Whichever marker comes first decides the form, as in the runner: `A=x<<y` is A = "x<<y".
    if (equals >= 0 && (heredoc < 0 || equals < heredoc)) {
      const name = line.slice(0, equals)
      if (name === '')
        throw new FileCommandError(`Invalid format '${line}': name must not be empty`)
      values[name] = line.slice(equals + 1)
    } else if (heredoc >= 0) {
      const name = line.slice(0, heredoc)
      const delimiter = line.slice(heredoc + 2)
      if (name === '' || delimiter === '') {
        throw new FileCommandError(`Invalid format '${line}': name and delimiter must not be empty`)
      }
      const end = lines.indexOf(delimiter, i + 1)
      if (end < 0) throw new FileCommandError(`Matching delimiter not found '${delimiter}'`)
      values[name] = lines.slice(i + 1, end).join('\n')
      i = end
    } else {
      throw new FileCommandError(`Invalid format '${line}'`)
    }
  }
  return values
}

/** GITHUB_PATH: one directory per line, prepended to PATH for later steps. */
export function parsePathFile(text: string): string[] {
  return text.split(/\r?\n/).filter(line => line.trim() !== '')
}
