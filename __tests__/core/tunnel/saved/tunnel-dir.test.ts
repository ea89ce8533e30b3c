/**
 * The one removal of a tunnel's folder, for both hosts: only the folder main made, and in it only
 * the files the tunnel process writes.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { directoryId } from '../../../../src/core/owned-dir.js'
import { lastLogLine, removeTunnelDir } from '../../../../src/core/tunnel/saved/tunnel-dir.js'

let root: string
beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'tunnel-dir-test-'))))
afterEach(() => rmSync(root, { recursive: true, force: true }))

/** A folder as launchKeeper leaves it, with the tunnel process's files. */
function tunnelDir(files = ['tunnel.log', 'stats.json', 'stop']): { dir: string; dirId: string } {
  const dir = join(root, 'tunnel-Ab12Cd')
  mkdirSync(dir)
  for (const name of files) writeFileSync(join(dir, name), 'x')
  return { dir, dirId: directoryId(dir) }
}

it('removes the folder and the files its process writes', () => {
  const { dir, dirId } = tunnelDir()
  expect(removeTunnelDir(dir, dirId)).toBeUndefined()
  expect(existsSync(dir)).toBe(false)
})

it('removes the folder of a process killed while it wrote its record (stats.json.tmp)', () => {
  const { dir, dirId } = tunnelDir(['tunnel.log', 'stats.json', 'stats.json.tmp'])
  expect(removeTunnelDir(dir, dirId)).toBeUndefined()
  expect(existsSync(dir)).toBe(false)
})

it("removes the request log's spool and counts, and those half-written, with the folder", () => {
  const { dir, dirId } = tunnelDir([
    'tunnel.log',
    'stats.json',
    'requests.spool',
    'requests.spool.tmp',
    'requests-tally.json',
    'requests-tally.json.tmp'
  ])
  expect(removeTunnelDir(dir, dirId)).toBeUndefined()
  expect(existsSync(dir)).toBe(false)
})

it('has nothing to tidy when the folder is gone already', () => {
  expect(removeTunnelDir(join(root, 'tunnel-Gone12'), '1:2')).toBeUndefined()
})

it('keeps a file it did not write, and the folder with it, and says why', () => {
  const { dir, dirId } = tunnelDir()
  writeFileSync(join(dir, 'notes.txt'), 'mine')
  expect(removeTunnelDir(dir, dirId)).toEqual(expect.any(String))
  expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine')
})

it('touches nothing in a folder put in its place', () => {
  const { dir, dirId } = tunnelDir()
  rmSync(dir, { recursive: true })
  // Another folder takes the freed inode first, so the new one cannot pass for the old.
  mkdirSync(join(root, 'holder'))
  mkdirSync(dir)
  expect(directoryId(dir)).not.toBe(dirId)
  writeFileSync(join(dir, 'tunnel.log'), 'another folder')
  expect(removeTunnelDir(dir, dirId)).toEqual(expect.any(String))
  expect(readFileSync(join(dir, 'tunnel.log'), 'utf8')).toBe('another folder')
})

it('follows no symbolic link put at its path', () => {
  const { dir, dirId } = tunnelDir()
  const elsewhere = join(root, 'elsewhere')
  mkdirSync(elsewhere)
  writeFileSync(join(elsewhere, 'tunnel.log'), 'keep')
  rmSync(dir, { recursive: true })
  symlinkSync(elsewhere, dir)
  expect(removeTunnelDir(dir, dirId)).toEqual(expect.any(String))
  expect(readFileSync(join(elsewhere, 'tunnel.log'), 'utf8')).toBe('keep')
})

it("quotes the log's last line, for a message that cannot point to a log about to go", () => {
  const { dir } = tunnelDir([])
  writeFileSync(join(dir, 'tunnel.log'), 'first\nEnded: the server went away\n')
  expect(lastLogLine(dir)).toBe('Ended: the server went away')
  expect(lastLogLine(join(root, 'tunnel-Gone12'))).toBe('none')
})
