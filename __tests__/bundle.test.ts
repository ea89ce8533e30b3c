/**
 * What the runner pays to start the bundles, every step: dist/ holds only ASCII (one other
 * character makes Node hold a whole file as UTF-16), and the steps' bundle no longer reads
 * fs.promises when it loads (scripts/defer-fs-promises.ts).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deferFsPromises } from '../scripts/defer-fs-promises.js'
import { repoRoot } from '../scripts/runner.js'

const SUMMARY_LINE =
  'const { access, appendFile, writeFile } = external_fs_namespaceObject.promises;'

describe('dist/', () => {
  it.each(['dist/index.cjs', 'dist/tunnel/index.cjs'])('%s holds only ASCII', file => {
    const bytes = readFileSync(join(repoRoot, file))
    const at = bytes.findIndex(byte => byte > 0x7f)
    const around =
      at === -1 ? 'ASCII only' : bytes.subarray(Math.max(0, at - 40), at + 40).toString()
    expect(around).toBe('ASCII only')
  })

  it('runs a step without loading fs.promises', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-test-'))
    try {
      const probe = join(dir, 'probe.cjs')
      writeFileSync(
        probe,
        "process.on('exit', () => process.stderr.write('fs.promises loaded: ' + " +
          "process.moduleLoadList.includes('NativeModule internal/fs/promises')))"
      )
      let stdout = ''
      let stderr = ''
      try {
        execFileSync(process.execPath, ['--require', probe, join(repoRoot, 'dist', 'index.cjs')], {
          env: { PATH: process.env.PATH ?? '' },
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe']
        })
      } catch (error) {
        // No api-key: the main step fails, after @actions/core and the whole bundle have loaded.
        ;({ stdout, stderr } = error as { stdout: string; stderr: string })
      }
      expect(stdout).toContain('::error::Input api-key is empty')
      expect(stderr).toBe('fs.promises loaded: false')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('deferFsPromises', () => {
  it('reads fs.promises on each call instead of at load', () => {
    const code = `head\n${SUMMARY_LINE}\ntail`
    const deferred = deferFsPromises(code)
    expect(deferred).not.toContain(SUMMARY_LINE)
    const calls: string[] = []
    const fsLike = {
      get promises() {
        calls.push('read')
        return {
          access: (...args: unknown[]) => ['access', ...args],
          appendFile: (...args: unknown[]) => ['appendFile', ...args],
          writeFile: (...args: unknown[]) => ['writeFile', ...args]
        }
      }
    }
    const line = deferred.split('\n')[1]
    const functions = new Function(
      'external_fs_namespaceObject',
      `${line} return { access, appendFile, writeFile }`
    )(fsLike) as Record<string, (...args: unknown[]) => unknown>
    expect(calls).toEqual([])
    expect(functions.appendFile('f', 'x')).toEqual(['appendFile', 'f', 'x'])
    expect(functions.writeFile('f', 'y', { flag: 'w' })).toEqual([
      'writeFile',
      'f',
      'y',
      { flag: 'w' }
    ])
    expect(functions.access('f', 2)).toEqual(['access', 'f', 2])
    expect(calls).toEqual(['read', 'read', 'read'])
    expect(deferred.startsWith('head\n') && deferred.endsWith('\ntail')).toBe(true)
  })

  it.each([
    ['is missing', 'no such line'],
    ['appears twice', `${SUMMARY_LINE}\n${SUMMARY_LINE}`]
  ])('fails the bundle when the line %s', (_, code) => {
    expect(() => deferFsPromises(code)).toThrow(
      "bundle: expected @actions/core's summary module to read fs.promises once at load"
    )
  })
})
