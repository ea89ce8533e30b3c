import {
  existsSync,
  mkdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import {
  createKeyFolder,
  isKeyFolder,
  removeKeyFolder,
  writeKeyFile
} from '../../../src/core/kinds/key-file.js'

let runnerTemp: string
beforeEach(() => {
  runnerTemp = mkdtempSync(join(tmpdir(), 'key-file-'))
})
afterEach(() => rmSync(runnerTemp, { recursive: true, force: true }))

it('makes a fresh private folder under RUNNER_TEMP and a file only its owner can read', () => {
  const folder = createKeyFolder(runnerTemp)
  expect(dirname(folder.path)).toBe(runnerTemp)
  expect(statSync(folder.path).mode & 0o777).toBe(0o700)
  const stats = statSync(folder.path, { bigint: true })
  expect(folder.id).toBe(`${stats.dev}:${stats.ino}`)
  expect(createKeyFolder(runnerTemp).path).not.toBe(folder.path)
  const path = writeKeyFile(folder.path, 'secret\n')
  expect(path).toBe(join(folder.path, 'id_ed25519'))
  expect(statSync(path).mode & 0o777).toBe(0o600)
  expect(readFileSync(path, 'utf8')).toBe('secret\n')
})

it('makes the folder directly under the root it is given', () => {
  const folder = createKeyFolder(tmpdir())
  expect(dirname(folder.path)).toBe(tmpdir())
  expect(removeKeyFolder(folder)).toBeUndefined()
  expect(existsSync(folder.path)).toBe(false)
})

it('refuses to write through a file that is already there', () => {
  const folder = createKeyFolder(runnerTemp)
  writeFileSync(join(folder.path, 'id_ed25519'), 'planted')
  expect(() => writeKeyFile(folder.path, 'secret\n')).toThrow(/EEXIST/)
  expect(readFileSync(join(folder.path, 'id_ed25519'), 'utf8')).toBe('planted')
})

it('removes the key file and its folder, and is quiet when they are gone', () => {
  const folder = createKeyFolder(runnerTemp)
  writeKeyFile(folder.path, 'secret\n')
  expect(removeKeyFolder(folder)).toBeUndefined()
  expect(existsSync(folder.path)).toBe(false)
  expect(removeKeyFolder(folder)).toBeUndefined()
})

it('never deletes anything but the key file: a folder with other files stays', () => {
  const folder = createKeyFolder(runnerTemp)
  writeFileSync(join(folder.path, 'precious'), 'keep')
  expect(() => removeKeyFolder(folder)).toThrow(/ENOTEMPTY|EEXIST/)
  expect(readFileSync(join(folder.path, 'precious'), 'utf8')).toBe('keep')
})

describe('removeKeyFolder refuses a folder it cannot prove it made', () => {
  const dotSsh = () => {
    const target = join(runnerTemp, 'dot-ssh')
    mkdirSync(target)
    writeFileSync(join(target, 'id_ed25519'), 'the user key')
    return target
  }

  it('a link in its place', () => {
    const folder = createKeyFolder(runnerTemp)
    const target = dotSsh()
    rmdirSync(folder.path)
    symlinkSync(target, folder.path)
    expect(removeKeyFolder(folder)).toBe('it is a symbolic link, not the directory this tool made')
    expect(readFileSync(join(target, 'id_ed25519'), 'utf8')).toBe('the user key')
  })

  it('another directory in its place, or no saved id', () => {
    const folder = createKeyFolder(runnerTemp)
    const other = { path: dotSsh(), id: folder.id }
    expect(removeKeyFolder(other)).toBe('it is another directory than the one this tool made')
    expect(removeKeyFolder({ path: folder.path, id: undefined })).toBe(
      'the saved state does not say which directory was made'
    )
    expect(readFileSync(join(other.path, 'id_ed25519'), 'utf8')).toBe('the user key')
    expect(existsSync(folder.path)).toBe(true)
  })

  it('a file in its place', () => {
    const folder = createKeyFolder(runnerTemp)
    rmdirSync(folder.path)
    writeFileSync(folder.path, 'a file')
    expect(removeKeyFolder(folder)).toBe('it is not a directory')
    expect(readFileSync(folder.path, 'utf8')).toBe('a file')
  })
})

describe('isKeyFolder', () => {
  it('knows a folder createKeyFolder made', () => {
    const folder = createKeyFolder(runnerTemp).path
    expect(isKeyFolder(folder, runnerTemp)).toBe(true)
    expect(isKeyFolder(`${folder}/`, runnerTemp)).toBe(true)
  })

  it.each([
    ['a folder elsewhere with an id_ed25519', '/home/runner/.ssh'],
    ['a look-alike outside RUNNER_TEMP', '/var/tmp/tunnel-key-abc123'],
    ['a nested path', 'RUNNER_TEMP/tunnel-key-abc123/deeper'],
    ['a path that climbs out', 'RUNNER_TEMP/tunnel-key-abc123/../../etc'],
    ['RUNNER_TEMP itself', 'RUNNER_TEMP'],
    ['another name', 'RUNNER_TEMP/other-abc123']
  ])('refuses %s', (_name, path) => {
    const folder = path.replace('RUNNER_TEMP', runnerTemp)
    expect(isKeyFolder(folder, runnerTemp)).toBe(false)
  })
})
