import { execFileSync } from 'node:child_process'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  ENV_FILE_HEADER,
  envFileText,
  removeEnvFile,
  writeEnvFile
} from '../../src/cli/env-file.js'

let dir: string
let path: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cli-env-file-'))
  path = join(dir, 'tunnel.env')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

/** Values a shell would mangle if the quoting were wrong. */
const AWKWARD: Record<string, string> = {
  T_SINGLE: "it's 'quoted'",
  T_ONLY_QUOTE: "'",
  T_QUOTES_ONLY: "''''",
  T_DOUBLE: 'say "hi"',
  T_DOLLAR: '$HOME ${PATH} $(id) $1 $',
  T_BACKTICK: '`id` `',
  T_BACKSLASH: 'a\\b\\\\c\\n\\',
  T_SPACES: '  leading and trailing  ',
  T_HASH: '# not a comment #',
  T_EQUALS: 'a=b==c=',
  T_UNICODE: 'café ☃ 日本語 🎉 ü',
  T_EMPTY: '',
  T_MIXED: `'"$\`\\ #=;&|<>(){}*?[]~!%^`,
  T_TAB: 'a\tb'
}

const NAMES = Object.keys(AWKWARD)

/** The variables' bytes, as the shell holds them after `set -a; . file` (env -0). */
function loadedWithSetA(shell: string, file: string): Map<string, Buffer> {
  const out = execFileSync(shell, ['-c', 'set -a; . "$1"; set +a; env -0', shell, file], {
    env: {},
    // Not a socket: bash reads ~/.bashrc when its stdin is one, as under sshd.
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const loaded = new Map<string, Buffer>()
  let start = 0
  for (let end = out.indexOf(0); end !== -1; start = end + 1, end = out.indexOf(0, start)) {
    const entry = out.subarray(start, end)
    const equals = entry.indexOf('=')
    loaded.set(entry.subarray(0, equals).toString(), entry.subarray(equals + 1))
  }
  return loaded
}

/** The variables' bytes as plain `. file` leaves them, not exported, printed by the shell. */
function loadedPlain(shell: string, file: string): Buffer {
  const printing = NAMES.map(name => `"$${name}"`).join(' ')
  return execFileSync(shell, ['-c', `. "$1"; printf '%s\\0' ${printing}`, shell, file], {
    env: {},
    // Not a socket: bash reads ~/.bashrc when its stdin is one, as under sshd.
    stdio: ['ignore', 'pipe', 'pipe']
  })
}

const expectedBytes = () => Buffer.from(NAMES.map(name => `${AWKWARD[name]}\0`).join(''), 'utf8')

describe('writeEnvFile', () => {
  it.each(['sh', 'bash'])('writes values that %s loads byte for byte with set -a', shell => {
    writeEnvFile(path, AWKWARD)
    const loaded = loadedWithSetA(shell, path)
    for (const name of NAMES) {
      expect([name, loaded.get(name)]).toEqual([name, Buffer.from(AWKWARD[name], 'utf8')])
    }
  })

  it.each(['sh', 'bash'])('writes values that %s loads byte for byte without set -a', shell => {
    writeEnvFile(path, AWKWARD)
    expect(loadedPlain(shell, path).equals(expectedBytes())).toBe(true)
  })

  it('runs nothing while loading: no command substitution in a value is executed', () => {
    const marker = join(dir, 'ran')
    writeEnvFile(path, { T_A: `$(touch ${marker})`, T_B: `\`touch ${marker}\`` })
    loadedWithSetA('sh', path)
    loadedWithSetA('bash', path)
    expect(existsSync(marker)).toBe(false)
  })

  it("writes one NAME='value' line per variable after the header", () => {
    writeEnvFile(path, { SVC_TUNNEL_HOST: 'h.example', SVC_NOTE: "it's" })
    expect(readFileSync(path, 'utf8')).toBe(
      `${ENV_FILE_HEADER}\nSVC_TUNNEL_HOST='h.example'\nSVC_NOTE='it'\\''s'\n`
    )
  })

  it('writes only the header when there is no variable', () => {
    expect(envFileText({})).toBe(`${ENV_FILE_HEADER}\n`)
  })

  it('makes the file 0600, also when it replaces a readable one', () => {
    writeFileSync(path, 'OLD=1\n', { mode: 0o644 })
    writeEnvFile(path, { T: 'x' })
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(readdirSync(dir)).toEqual(['tunnel.env'])
  })

  it('replaces a symlink planted at the path and leaves its target unchanged', () => {
    const target = join(dir, 'profile')
    writeFileSync(target, 'export KEEP=1\n')
    symlinkSync(target, path)
    writeEnvFile(path, { T: 'x' })
    expect(lstatSync(path).isSymbolicLink()).toBe(false)
    expect(readFileSync(path, 'utf8')).toBe(`${ENV_FILE_HEADER}\nT='x'\n`)
    expect(readFileSync(target, 'utf8')).toBe('export KEEP=1\n')
  })
})

describe('removeEnvFile', () => {
  it('deletes a file this tool wrote', () => {
    writeEnvFile(path, { T: 'x' })
    expect(removeEnvFile(path)).toBe(true)
    expect(existsSync(path)).toBe(false)
  })

  it('answers false when there is no file', () => {
    expect(removeEnvFile(path)).toBe(false)
  })

  it.each([
    ['a file without the header', 'T=x\n'],
    ['the header further down', `# mine\n${ENV_FILE_HEADER}\n`],
    ['the header without its line break', ENV_FILE_HEADER],
    ['the header with more on its line', `${ENV_FILE_HEADER} and more\n`],
    ['an empty file', '']
  ])('leaves %s', (_what, text) => {
    writeFileSync(path, text)
    expect(removeEnvFile(path)).toBe(false)
    expect(readFileSync(path, 'utf8')).toBe(text)
  })

  it('leaves a symlink, even to a file this tool wrote, and the file it points to', () => {
    const target = join(dir, 'real.env')
    writeEnvFile(target, { T: 'x' })
    symlinkSync(target, path)
    expect(removeEnvFile(path)).toBe(false)
    expect(lstatSync(path).isSymbolicLink()).toBe(true)
    expect(existsSync(target)).toBe(true)
  })

  it('leaves a directory', () => {
    mkdirSync(path)
    expect(removeEnvFile(path)).toBe(false)
    expect(statSync(path).isDirectory()).toBe(true)
  })
})
