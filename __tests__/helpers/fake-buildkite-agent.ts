/**
 * A stand-in `buildkite-agent`: a directory to put first on the PATH of the environment the CLI
 * is given. It records its arguments and what it read on stdin, and exits with the code the
 * test chose.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'

export interface FakeAgent {
  /** PATH with the fake agent first. */
  path: string
  /** The arguments of every call, one a line, or undefined when it was never called. */
  argv(): string | undefined
  /** What the last call read on stdin. */
  stdin(): string | undefined
  remove(): void
}

export function installFakeBuildkiteAgent(exitCode = 0): FakeAgent {
  const dir = mkdtempSync(join(tmpdir(), 'fake-buildkite-agent-'))
  const argvFile = join(dir, 'argv')
  const stdinFile = join(dir, 'stdin')
  const script = [
    '#!/bin/sh',
    `printf '%s\\n' "$@" >> '${argvFile}'`,
    `cat > '${stdinFile}'`,
    `exit ${exitCode}`,
    ''
  ].join('\n')
  writeFileSync(join(dir, 'buildkite-agent'), script)
  chmodSync(join(dir, 'buildkite-agent'), 0o755)
  const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : undefined)
  return {
    path: `${dir}${delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`,
    argv: () => read(argvFile),
    stdin: () => read(stdinFile),
    remove: () => rmSync(dir, { recursive: true, force: true })
  }
}
