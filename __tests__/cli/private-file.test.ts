import {
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
import { readRegularFile, writePrivateFile } from '../../src/cli/private-file.js'

let dir: string
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'cli-private-'))))
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const modeOf = (path: string) => statSync(path).mode & 0o777

describe('writePrivateFile', () => {
  it('writes the text whole, mode 0600, leaving no temporary file beside it', () => {
    const path = join(dir, 'out.txt')
    writePrivateFile(path, 'first line\nsecond ☃\n')
    expect(readFileSync(path, 'utf8')).toBe('first line\nsecond ☃\n')
    expect(modeOf(path)).toBe(0o600)
    expect(readdirSync(dir)).toEqual(['out.txt'])
  })

  it('makes the file 0600 under a permissive umask too', () => {
    const before = process.umask(0)
    try {
      writePrivateFile(join(dir, 'out.txt'), 'x')
    } finally {
      process.umask(before)
    }
    expect(modeOf(join(dir, 'out.txt'))).toBe(0o600)
  })

  it('replaces a readable file of the same name with a 0600 one', () => {
    const path = join(dir, 'out.txt')
    writeFileSync(path, 'old text that is longer than the new one', { mode: 0o644 })
    writePrivateFile(path, 'new')
    expect(readFileSync(path, 'utf8')).toBe('new')
    expect(modeOf(path)).toBe(0o600)
  })

  it('replaces a symlink planted at the path, leaving its target as it was', () => {
    const target = join(dir, 'target.txt')
    writeFileSync(target, 'do not touch', { mode: 0o644 })
    const path = join(dir, 'out.txt')
    symlinkSync(target, path)
    writePrivateFile(path, 'private')
    expect(lstatSync(path).isSymbolicLink()).toBe(false)
    expect(readFileSync(path, 'utf8')).toBe('private')
    expect(readFileSync(target, 'utf8')).toBe('do not touch')
    expect(modeOf(target)).toBe(0o644)
  })

  it('replaces a dangling symlink instead of creating its target', () => {
    const path = join(dir, 'out.txt')
    symlinkSync(join(dir, 'created-through-link'), path)
    writePrivateFile(path, 'private')
    expect(readdirSync(dir)).toEqual(['out.txt'])
    expect(lstatSync(path).isFile()).toBe(true)
  })

  it('throws when the directory does not exist', () => {
    expect(() => writePrivateFile(join(dir, 'missing', 'out.txt'), 'x')).toThrow(/ENOENT/)
  })

  it('throws and removes its temporary file when the path is a directory', () => {
    const path = join(dir, 'taken')
    mkdirSync(path)
    writeFileSync(join(path, 'inside'), 'kept')
    expect(() => writePrivateFile(path, 'x')).toThrow()
    expect(readdirSync(dir)).toEqual(['taken'])
    expect(readFileSync(join(path, 'inside'), 'utf8')).toBe('kept')
  })
})

describe('readRegularFile', () => {
  it('reads a regular file up to the limit, inclusive', () => {
    const path = join(dir, 'f')
    writeFileSync(path, '12345')
    expect(readRegularFile(path, 5)).toBe('12345')
    expect(readRegularFile(path, 4)).toBeUndefined()
  })

  it('answers undefined for a missing path, a directory and a symlink', () => {
    const target = join(dir, 'target')
    writeFileSync(target, 'text')
    symlinkSync(target, join(dir, 'link'))
    mkdirSync(join(dir, 'sub'))
    expect(readRegularFile(join(dir, 'missing'), 100)).toBeUndefined()
    expect(readRegularFile(join(dir, 'sub'), 100)).toBeUndefined()
    expect(readRegularFile(join(dir, 'link'), 100)).toBeUndefined()
  })
})
