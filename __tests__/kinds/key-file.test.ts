import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import {
  createKeyFolder,
  isKeyFolder,
  removeKeyFolder,
  writeKeyFile
} from '../../src/kinds/key-file.js'

let runnerTemp: string
beforeEach(() => {
  runnerTemp = mkdtempSync(join(tmpdir(), 'key-file-'))
})
afterEach(() => rmSync(runnerTemp, { recursive: true, force: true }))

it('makes a fresh private folder under RUNNER_TEMP and a file only its owner can read', () => {
  const folder = createKeyFolder({ RUNNER_TEMP: runnerTemp })
  expect(dirname(folder)).toBe(runnerTemp)
  expect(statSync(folder).mode & 0o777).toBe(0o700)
  expect(createKeyFolder({ RUNNER_TEMP: runnerTemp })).not.toBe(folder)
  const path = writeKeyFile(folder, 'secret\n')
  expect(path).toBe(join(folder, 'id_ed25519'))
  expect(statSync(path).mode & 0o777).toBe(0o600)
  expect(readFileSync(path, 'utf8')).toBe('secret\n')
})

it('uses the system temporary folder outside a runner', () => {
  const folder = createKeyFolder({})
  expect(dirname(folder)).toBe(tmpdir())
  removeKeyFolder(folder)
  expect(existsSync(folder)).toBe(false)
})

it('refuses to write through a file that is already there', () => {
  const folder = createKeyFolder({ RUNNER_TEMP: runnerTemp })
  writeFileSync(join(folder, 'id_ed25519'), 'planted')
  expect(() => writeKeyFile(folder, 'secret\n')).toThrow(/EEXIST/)
  expect(readFileSync(join(folder, 'id_ed25519'), 'utf8')).toBe('planted')
})

it('removes the key file and its folder, and is quiet when they are gone', () => {
  const folder = createKeyFolder({ RUNNER_TEMP: runnerTemp })
  writeKeyFile(folder, 'secret\n')
  removeKeyFolder(folder)
  expect(existsSync(folder)).toBe(false)
  expect(() => removeKeyFolder(folder)).not.toThrow()
})

it('never deletes anything but the key file: a folder with other files stays', () => {
  const folder = join(runnerTemp, 'not-ours')
  mkdirSync(folder)
  writeFileSync(join(folder, 'precious'), 'keep')
  expect(() => removeKeyFolder(folder)).toThrow(/ENOTEMPTY|EEXIST/)
  expect(readFileSync(join(folder, 'precious'), 'utf8')).toBe('keep')
})

describe('isKeyFolder', () => {
  it('knows a folder createKeyFolder made', () => {
    const env = { RUNNER_TEMP: runnerTemp }
    const folder = createKeyFolder(env)
    expect(isKeyFolder(folder, env)).toBe(true)
    expect(isKeyFolder(`${folder}/`, env)).toBe(true)
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
    expect(isKeyFolder(folder, { RUNNER_TEMP: runnerTemp })).toBe(false)
  })
})
