/**
 * The npm package as `npm publish` (the release workflow's publish job) would send it: no
 * dependency to install, the bin a Node script, Node 20 or later, and a tarball that holds the
 * `files` of package.json and nothing else, within 1 MB (1,000,000 bytes).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { repoRoot } from '../scripts/runner.js'
import { usePackedTarball } from './helpers/packed-cli.js'

interface PackageJson {
  bin?: Record<string, string>
  files?: string[]
  engines?: Record<string, string>
  [field: string]: unknown
}

const packageJson = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as PackageJson

/** The committed files under a folder of the package's `files`. */
const tracked = (folder: string) =>
  execFileSync('git', ['ls-files', '-z', '--', folder], { cwd: repoRoot, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean)

describe('package.json', () => {
  it.each(['dependencies', 'optionalDependencies', 'peerDependencies', 'bundleDependencies'])(
    'has no %s: the bundles carry everything',
    field => {
      expect(packageJson[field]).toBeUndefined()
    }
  )

  it('names tunnel-credentials, a Node script, as its only bin', () => {
    expect(packageJson.bin).toEqual({ 'tunnel-credentials': 'dist/cli/index.cjs' })
    const firstLine = readFileSync(join(repoRoot, 'dist/cli/index.cjs'), 'utf8').split('\n')[0]
    expect(firstLine).toBe('#!/usr/bin/env node')
  })

  it('needs Node 20 or later', () => {
    expect(packageJson.engines?.node).toBe('>=20')
  })

  it('publishes exactly these files', () => {
    expect(packageJson.files).toEqual([
      'dist/package.json',
      'dist/cli/',
      'dist/tunnel/',
      'templates/',
      'docs/other-ci.md'
    ])
  })
})

let packedAt = ''
describe('the packed tarball', () => {
  const packed = usePackedTarball()
  let tarball = ''
  beforeAll(() => (tarball = packedAt = packed()))

  it('is at most 1 MB (1,000,000 bytes)', () => {
    expect(statSync(tarball).size).toBeLessThanOrEqual(1_000_000)
  })

  it("holds the package's files and nothing else", () => {
    const listed = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(entry => entry.replace(/^package\//, ''))
      .sort()
    const expected = [
      'LICENSE',
      'README.md',
      'package.json',
      'dist/package.json',
      'docs/other-ci.md',
      ...tracked('dist/cli/'),
      ...tracked('dist/tunnel/'),
      ...tracked('templates/')
    ].sort()
    expect(listed).toEqual(expected)
    // The action's own bundle is not the CLI's: it stays out of the package.
    expect(listed).toEqual(expect.arrayContaining(['dist/cli/index.cjs', 'dist/tunnel/index.cjs']))
    expect(listed).not.toContain('dist/index.cjs')
  })
})

// Runs after the block above has ended: its tarball, and the folder it was packed in, are gone,
// so a run of the tests leaves no packed tarball in the system's temp folder.
describe('after the tests of the packed tarball', () => {
  it('leaves neither the tarball nor its folder behind', () => {
    expect(packedAt).not.toBe('')
    expect(existsSync(dirname(packedAt))).toBe(false)
  })
})
