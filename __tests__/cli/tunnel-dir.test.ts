import { spawn } from 'node:child_process'
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
import { removeTunnelDir } from '../../src/cli/tunnel-dir.js'
import { directoryId } from '../../src/core/owned-dir.js'

let root: string
beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'tunnel-dir-test-'))))
afterEach(() => rmSync(root, { recursive: true, force: true }))

/** A directory as launchKeeper leaves it, with the tunnel process's three files. */
function tunnelDir(): { dir: string; dirId: string } {
  const dir = join(root, 'tunnel-Ab12Cd')
  mkdirSync(dir)
  for (const name of ['tunnel.log', 'stats.json', 'stop']) writeFileSync(join(dir, name), 'x')
  return { dir, dirId: directoryId(dir) }
}

/** A pid that no process holds: one that has just ended. */
async function endedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''])
  await new Promise(resolve => child.on('exit', resolve))
  return child.pid!
}

it('removes the directory of a process that is gone', async () => {
  const saved = { pid: await endedPid(), ...tunnelDir() }
  expect(removeTunnelDir(saved)).toBe(true)
  expect(existsSync(saved.dir)).toBe(false)
})

it('keeps the directory while its process runs', () => {
  const saved = { pid: process.pid, ...tunnelDir() }
  expect(removeTunnelDir(saved)).toBe(false)
  expect(existsSync(join(saved.dir, 'tunnel.log'))).toBe(true)
})

it('keeps a file it did not write, and the directory with it', async () => {
  const saved = { pid: await endedPid(), ...tunnelDir() }
  writeFileSync(join(saved.dir, 'notes.txt'), 'mine')
  expect(removeTunnelDir(saved)).toBe(false)
  expect(readFileSync(join(saved.dir, 'notes.txt'), 'utf8')).toBe('mine')
})

it('touches nothing in a directory put in its place', async () => {
  const saved = { pid: await endedPid(), ...tunnelDir() }
  rmSync(saved.dir, { recursive: true })
  // Another directory takes the freed inode first, so the new one cannot pass for the old.
  mkdirSync(join(root, 'holder'))
  mkdirSync(saved.dir)
  expect(directoryId(saved.dir)).not.toBe(saved.dirId)
  writeFileSync(join(saved.dir, 'tunnel.log'), 'another directory')
  expect(removeTunnelDir(saved)).toBe(false)
  expect(readFileSync(join(saved.dir, 'tunnel.log'), 'utf8')).toBe('another directory')
})

it('follows no symbolic link put at its path', async () => {
  const saved = { pid: await endedPid(), ...tunnelDir() }
  const elsewhere = join(root, 'elsewhere')
  mkdirSync(elsewhere)
  writeFileSync(join(elsewhere, 'tunnel.log'), 'keep')
  rmSync(saved.dir, { recursive: true })
  symlinkSync(elsewhere, saved.dir)
  expect(removeTunnelDir(saved)).toBe(false)
  expect(readFileSync(join(elsewhere, 'tunnel.log'), 'utf8')).toBe('keep')
})
