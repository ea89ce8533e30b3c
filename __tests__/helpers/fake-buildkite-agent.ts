/**
 * A stand-in `buildkite-agent` in a folder of its own, to name in BUILDKITE_BIN_PATH or to put
 * first on PATH. It records whether it ran, its arguments, what it read on stdin and the
 * environment it was given, and exits with the code the test chose.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'

export interface FakeAgent {
  /** The folder holding the agent: a BUILDKITE_BIN_PATH. */
  dir: string
  /** PATH with the fake agent first. */
  path: string
  /** True once it has run. */
  ran(): boolean
  /** The arguments of every call, one a line, or undefined when it was never called. */
  argv(): string | undefined
  /** What the last call read on stdin. */
  stdin(): string | undefined
  /** The environment of the last call, or undefined when it was never called. */
  env(): Record<string, string> | undefined
  remove(): void
}

export function installFakeBuildkiteAgent(exitCode = 0): FakeAgent {
  const dir = mkdtempSync(join(tmpdir(), 'fake-buildkite-agent-'))
  const argvFile = join(dir, 'argv')
  const stdinFile = join(dir, 'stdin')
  const envFile = join(dir, 'env')
  const script = [
    '#!/bin/sh',
    `printf '%s\\n' "$@" >> '${argvFile}'`,
    // NUL-separated, so that a value holding a line break is recorded whole.
    `env -0 > '${envFile}'`,
    `cat > '${stdinFile}'`,
    `exit ${exitCode}`,
    ''
  ].join('\n')
  writeFileSync(join(dir, 'buildkite-agent'), script)
  chmodSync(join(dir, 'buildkite-agent'), 0o755)
  const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : undefined)
  return {
    dir,
    path: `${dir}${delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`,
    ran: () => existsSync(argvFile),
    argv: () => read(argvFile),
    stdin: () => read(stdinFile),
    env: () => {
      const text = read(envFile)
      if (text === undefined) return undefined
      return Object.fromEntries(
        text
          .split('\0')
          .filter(Boolean)
          .map(entry => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)])
      )
    },
    remove: () => rmSync(dir, { recursive: true, force: true })
  }
}
