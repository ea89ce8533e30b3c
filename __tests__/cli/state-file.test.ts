import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { claimStateFile, fileState, loadStateFile } from '../../src/cli/state-file.js'

let dir: string
let path: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cli-state-'))
  path = join(dir, '.tunnel-credentials.json')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const MARKER = 'tunnel-credentials state'
const write = (content: unknown) =>
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
const onDisk = () => JSON.parse(readFileSync(path, 'utf8')) as unknown

describe('loadStateFile', () => {
  it('finds nothing when there is no file', () => {
    expect(loadStateFile(path)).toEqual({ type: 'none' })
  })

  it("reads this tool's file", () => {
    write({ format: MARKER, values: { 'token-id': 'tok_1', expose: 'web=3000' } })
    expect(loadStateFile(path)).toEqual({
      type: 'state',
      values: { 'token-id': 'tok_1', expose: 'web=3000' }
    })
  })

  it("reads this tool's file with no value", () => {
    write({ format: MARKER, values: {} })
    expect(loadStateFile(path)).toEqual({ type: 'state', values: {} })
  })

  it.each([
    ['JSON of another tool', { name: 'package', version: '1.0.0' }],
    ['another marker', { format: 'tunnel-credentials state v2', values: {} }],
    ['no values', { format: MARKER }],
    ['values that are null', { format: MARKER, values: null }],
    ['values that are a list', { format: MARKER, values: ['a'] }],
    ['values that are a string', { format: MARKER, values: 'token-id=x' }],
    ['a number among the values', { format: MARKER, values: { a: 'x', b: 1 } }],
    ['an object among the values', { format: MARKER, values: { a: { b: 'c' } } }],
    ['null among the values', { format: MARKER, values: { a: null } }],
    ['a JSON list', [MARKER, {}]],
    ['a JSON string', JSON.stringify(MARKER)],
    ['JSON null', 'null'],
    ['a JSON number', '42'],
    ['text that is not JSON', 'SVC_TUNNEL_HOST=x\n'],
    ['an empty file', '']
  ])('calls %s foreign', (_what, content) => {
    write(content)
    expect(loadStateFile(path)).toEqual({ type: 'foreign' })
  })

  it('takes a file larger than 64 KiB as not its own, even one in its format', () => {
    write({ format: MARKER, values: { padding: 'x'.repeat(64 * 1024) } })
    expect(loadStateFile(path)).toEqual({ type: 'foreign' })
  })

  it('reads a file of exactly 64 KiB', () => {
    const empty = JSON.stringify({ format: MARKER, values: { padding: '' } }).length
    write({ format: MARKER, values: { padding: 'x'.repeat(64 * 1024 - empty) } })
    expect(statSync(path).size).toBe(64 * 1024)
    expect(loadStateFile(path).type).toBe('state')
  })

  it('takes a directory as not its own', () => {
    mkdirSync(path)
    expect(loadStateFile(path)).toEqual({ type: 'foreign' })
  })

  it("takes a symlink as not its own, even one to this tool's file, or a broken one", () => {
    const target = join(dir, 'elsewhere.json')
    writeFileSync(target, JSON.stringify({ format: MARKER, values: { a: 'b' } }))
    symlinkSync(target, path)
    expect(loadStateFile(path)).toEqual({ type: 'foreign' })
    rmSync(target)
    expect(loadStateFile(path)).toEqual({ type: 'foreign' })
  })

  it('keeps names such as __proto__ as plain values', () => {
    write(`{"format":"${MARKER}","values":{"__proto__":"x","a":"b"}}`)
    const loaded = loadStateFile(path)
    expect(loaded.type).toBe('state')
    if (loaded.type !== 'state') return
    expect(loaded.values.a).toBe('b')
    expect(Object.getPrototypeOf(loaded.values)).toBe(Object.prototype)
  })
})

describe('claimStateFile', () => {
  it('creates an empty state file, mode 0600, once: a second claim finds it taken', () => {
    expect(claimStateFile(path)).toBeUndefined()
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(loadStateFile(path)).toEqual({ type: 'state', values: {} })
    expect(claimStateFile(path)).toEqual({ type: 'state', values: {} })
  })

  it('takes a file claimed a moment ago, still empty, as taken', () => {
    writeFileSync(path, '')
    expect(claimStateFile(path)).toEqual({ type: 'state', values: {} })
  })

  it('leaves whatever is at the path as it was, and says what it is', () => {
    write({ format: MARKER, values: { 'token-id': 'tok_1' } })
    expect(claimStateFile(path)).toEqual({ type: 'state', values: { 'token-id': 'tok_1' } })
    const big = 'x'.repeat(64 * 1024 + 1)
    writeFileSync(path, big)
    expect(claimStateFile(path)).toEqual({ type: 'foreign' })
    expect(readFileSync(path, 'utf8')).toBe(big)
  })

  it('never follows a link at the path', () => {
    const target = join(dir, 'target')
    symlinkSync(target, path)
    expect(claimStateFile(path)).toEqual({ type: 'foreign' })
    expect(existsSync(target)).toBe(false)
  })

  it('lets later saves replace the claimed file', () => {
    claimStateFile(path)
    fileState(path).save('token-id', 'tok_1')
    expect(loadStateFile(path)).toEqual({ type: 'state', values: { 'token-id': 'tok_1' } })
  })
})

describe('fileState', () => {
  it('writes the whole file, mode 0600, on every save', () => {
    const state = fileState(path)
    expect(existsSync(path)).toBe(false)
    state.save('token-id', 'tok_1')
    expect(onDisk()).toEqual({ format: MARKER, values: { 'token-id': 'tok_1' } })
    expect(statSync(path).mode & 0o777).toBe(0o600)
    state.save('pid', '123')
    expect(onDisk()).toEqual({ format: MARKER, values: { 'token-id': 'tok_1', pid: '123' } })
    expect(loadStateFile(path)).toEqual({
      type: 'state',
      values: { 'token-id': 'tok_1', pid: '123' }
    })
  })

  it("deletes a name saved as ''", () => {
    const state = fileState(path, { 'token-id': 'tok_1', pid: '123' })
    state.save('pid', '')
    expect(state.load('pid')).toBe('')
    expect(onDisk()).toEqual({ format: MARKER, values: { 'token-id': 'tok_1' } })
    state.save('token-id', '')
    expect(state.isEmpty()).toBe(true)
    expect(onDisk()).toEqual({ format: MARKER, values: {} })
  })

  it("loads what was saved, and '' for a name never saved", () => {
    const state = fileState(path, { a: '1' })
    state.save('b', '2')
    expect([state.load('a'), state.load('b'), state.load('c')]).toEqual(['1', '2', ''])
    expect(state.isEmpty()).toBe(false)
    expect(fileState(path).isEmpty()).toBe(true)
  })

  it('keeps state in memory only without a path', () => {
    const state = fileState(undefined)
    state.save('a', '1')
    expect(state.load('a')).toBe('1')
    state.remove()
    expect(existsSync(path)).toBe(false)
  })

  it('replaces a symlink at the path, leaving its target unchanged', () => {
    const target = join(dir, 'package.json')
    writeFileSync(target, '{"name":"app"}')
    symlinkSync(target, path)
    fileState(path).save('a', '1')
    expect(lstatSync(path).isSymbolicLink()).toBe(false)
    expect(readFileSync(target, 'utf8')).toBe('{"name":"app"}')
  })

  it("removes this tool's file", () => {
    const state = fileState(path)
    state.save('a', '1')
    state.remove()
    expect(existsSync(path)).toBe(false)
    state.remove()
  })

  it.each([
    ['a foreign file', () => write({ name: 'package' })],
    ['a directory', () => mkdirSync(path)],
    [
      "a symlink to this tool's file",
      () => {
        const target = join(dir, 'target.json')
        writeFileSync(target, JSON.stringify({ format: MARKER, values: {} }))
        symlinkSync(target, path)
      }
    ]
  ])('leaves %s in place on remove()', (_what, plant) => {
    plant()
    fileState(path).remove()
    expect(lstatSync(path)).toBeDefined()
  })
})
