/** How post recognises the tunnel process: real processes, and /proc files for the odd cases. */
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  isKeeper,
  lookUpInProc,
  lookUpProcess,
  lookUpWithPs,
  startTimeOf
} from '../../../../src/core/tunnel/saved/process-identity.js'

const root = mkdtempSync(join(tmpdir(), 'identity-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** A /proc/<pid> with the given stat and command line. */
function fakeProc(pid: number, stat: string, args: string[]): string {
  mkdirSync(join(root, String(pid)), { recursive: true })
  writeFileSync(join(root, String(pid), 'stat'), stat)
  writeFileSync(join(root, String(pid), 'cmdline'), `${args.join('\0')}\0`)
  return root
}
const rest = (state: string, start: string) =>
  `${state} 1 2 2 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 ${start} 5124096 941 0`

describe('lookUpInProc', () => {
  it('reads the start time after the last ")", whatever the command name holds', () => {
    const dir = fakeProc(41, `41 (a) b) S 9 (x) ${rest('S', '777')}`, [
      'node',
      'keeper',
      '/t/tunnel-abc123'
    ])
    expect(lookUpInProc(41, dir)).toEqual({
      state: 'running',
      startTime: '777',
      args: 'node keeper /t/tunnel-abc123'
    })
  })

  it.each([
    ['a zombie', 'Z'],
    ['a dead process', 'X']
  ])('takes %s as gone', (_label, state) => {
    const dir = fakeProc(42, `42 (node) ${rest(state, '778')}`, [])
    expect(lookUpInProc(42, dir)).toEqual({ state: 'gone' })
  })

  it('takes a pid with no /proc entry as gone', () => {
    expect(lookUpInProc(43, root)).toEqual({ state: 'gone' })
  })
})

describe('on this machine', () => {
  it('/proc and ps both know a running process, and the same process by its directory', async () => {
    const dir = join(root, 'tunnel-aB3dE9')
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', dir])
    await new Promise(resolve => setTimeout(resolve, 300))
    try {
      const pid = child.pid!
      const look = lookUpProcess(pid)
      expect(look).toMatchObject({ state: 'running', startTime: expect.stringMatching(/^\d+$/) })
      expect(isKeeper(look, startTimeOf(pid)!, dir)).toBe(true)
      expect(isKeeper(look, startTimeOf(pid)!, `${dir}x`)).toBe(false)
      expect(isKeeper(look, '1', dir)).toBe(false)
      const byPs = lookUpWithPs(pid)
      expect(byPs).toMatchObject({ state: 'running', args: expect.stringMatching(/ -e /) })
      if (byPs.state !== 'running') throw new Error('unreachable')
      expect(isKeeper(byPs, byPs.startTime, dir)).toBe(true)
    } finally {
      child.kill('SIGKILL')
    }
    await new Promise(resolve => child.once('exit', resolve))
    expect(lookUpProcess(child.pid!)).toEqual({ state: 'gone' })
    expect(lookUpWithPs(child.pid!)).toEqual({ state: 'gone' })
    expect(startTimeOf(child.pid!)).toBeUndefined()
  })

  it('ps takes a zombie as gone', async () => {
    // The shell starts `sleep 0`, then becomes `sleep 30`, which never reaps it.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'])
    const pid = await new Promise<number>(resolve =>
      parent.stdout.once('data', data => resolve(Number(String(data).trim())))
    )
    await new Promise(resolve => setTimeout(resolve, 300))
    try {
      expect(lookUpWithPs(pid)).toEqual({ state: 'gone' })
      expect(lookUpInProc(pid)).toEqual({ state: 'gone' })
    } finally {
      parent.kill('SIGKILL')
    }
  })
})
