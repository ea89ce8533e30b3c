/**
 * The env file: one `NAME='value'` line per variable, which `.` loads exactly in sh and bash,
 * with or without `set -a`. Single quotes keep every character as it is; a quote inside a value
 * is closed, escaped and reopened.
 */
import { rmSync } from 'node:fs'
import { readRegularFile, writePrivateFile } from './private-file.js'

/** The first line: how revoke knows the file is one this tool wrote before deleting it. */
export const ENV_FILE_HEADER =
  '# Written by tunnel-credentials provision; tunnel-credentials revoke deletes it.'

export function envFileText(variables: Record<string, string>): string {
  const lines = Object.entries(variables).map(([name, value]) => `${name}=${shellQuoted(value)}`)
  return `${[ENV_FILE_HEADER, ...lines].join('\n')}\n`
}

export function writeEnvFile(path: string, variables: Record<string, string>): void {
  writePrivateFile(path, envFileText(variables))
}

function shellQuoted(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`
}

/** A file this tool wrote: its first line is the header. */
export function isOwnEnvFile(path: string): boolean {
  const text = readRegularFile(path, 1 << 20)
  return text !== undefined && text.startsWith(`${ENV_FILE_HEADER}\n`)
}

/** Deletes the file if this tool wrote it; returns whether it did. Anything else stays. */
export function removeEnvFile(path: string): boolean {
  if (!isOwnEnvFile(path)) return false
  rmSync(path, { force: true })
  return true
}
