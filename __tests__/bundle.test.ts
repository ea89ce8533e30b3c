/**
 * What the runner pays to start the bundles, every step: dist/ holds only ASCII (one other
 * character makes Node hold a whole file as UTF-16), and the steps' bundle no longer reads
 * fs.promises when it loads (scripts/defer-fs-promises.ts).
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deferFsPromises } from '../scripts/defer-fs-promises.js'
import { assertNoBinaries, findBinaries } from '../scripts/dist-binaries.js'
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

  // The detached tunnel process gets its configuration from main, parsed and checked already: its
  // bundle imports the tunnel's protocol (src/core/tunnel/protocol.ts), never the option or
  // credential parsers, which would load for nothing and tie the process to one host's inputs.
  it.each([
    'parseCredential',
    'failed validation',
    'isBareHost',
    'parseExpose',
    'parseHostKeyPins',
    'Input expose',
    'url-template'
  ])('dist/tunnel/index.cjs holds no option or credential parsing: no %j', text => {
    expect(readFileSync(join(repoRoot, 'dist/tunnel/index.cjs'), 'utf8')).not.toContain(text)
  })

  // Every step loads dist/index.cjs whole; the tunnel's code belongs in the chunk that only steps
  // with `expose` load, or in the tunnel process's own bundle (issue 23: start-up stays within
  // 1.35x the floor). `npm run bench`'s start-up section checks at run time that a step without
  // `expose` loads no chunk.
  it.each(['./core/tunnel/request-log/', './core/tunnel/keeper/', 'node_modules/ssh2/'])(
    "dist/index.cjs, which every step loads, holds no module of %s (the tunnel's code loads only with expose)",
    dir => {
      const modules = readFileSync(join(repoRoot, 'dist/index.cjs'), 'utf8')
        .split('\n')
        .filter(line => /^;?\/\/ (CONCATENATED|EXTERNAL) MODULE: /.test(line))
      expect(modules.length).toBeGreaterThan(10)
      expect(modules.filter(line => line.includes(dir))).toEqual([])
    }
  )

  it('holds no executable or native binary', () => {
    expect(findBinaries(join(repoRoot, 'dist'))).toEqual([])
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

describe('the check for binaries in dist/', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dist-binaries-'))
    mkdirSync(join(dir, 'tunnel'))
    writeFileSync(join(dir, 'index.cjs'), '"use strict";\n')
    writeFileSync(join(dir, 'licenses.txt'), 'MIT\n')
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('passes JavaScript and text', () => {
    expect(findBinaries(dir)).toEqual([])
    expect(() => assertNoBinaries(dir)).not.toThrow()
  })

  it.each([
    ['tunnel/pagent.exe', 'text', 'a native binary by its name'],
    ['tunnel/sshcrypto.node', 'text', 'a native binary by its name'],
    ['lib.so.1', 'text', 'a native binary by its name'],
    ['helper', '\x7fELF\x02\x01', 'starts with the ELF magic bytes'],
    ['tunnel/helper.bin', 'MZ\x90\x00', 'starts with the PE magic bytes'],
    ['helper.dat', '\xcf\xfa\xed\xfe', 'starts with the Mach-O magic bytes']
  ])('finds %s', (name, content, reason) => {
    writeFileSync(join(dir, name), Buffer.from(content, 'latin1'))
    expect(findBinaries(dir)).toEqual([`${name} (${reason})`])
    expect(() => assertNoBinaries(dir)).toThrow(
      `bundle: dist/ must hold no executable or native binary, found: ${name} (${reason}). Keep the module`
    )
  })

  it('finds a file with an executable mode', () => {
    writeFileSync(join(dir, 'tunnel', 'run.sh'), '#!/bin/sh\n')
    chmodSync(join(dir, 'tunnel', 'run.sh'), 0o755)
    expect(findBinaries(dir)).toEqual(['tunnel/run.sh (executable mode 755)'])
  })
})
