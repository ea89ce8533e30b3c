/**
 * The system packages `npm test` and `.ci/run` need: a missing one is named before any test
 * runs, and a failed apt-get stops `.ci/run` instead of being skipped without a word.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  canRun,
  installMissing,
  missingMessage,
  missingPackages,
  SYSTEM_PACKAGES
} from '../scripts/system-packages.js'

const all = SYSTEM_PACKAGES.map(({ name }) => name)
const without =
  (...absent: string[]) =>
  (program: string) =>
    !absent.includes(program)

describe('missingPackages', () => {
  it('names the Debian package of each program that cannot be run', () => {
    expect(missingPackages(without('jq', '/usr/sbin/sshd', 'rsync'))).toEqual([
      'jq',
      'openssh-server',
      'rsync'
    ])
    expect(missingPackages(() => true)).toEqual([])
  })

  it('names caddy when /usr/bin/caddy, the edge proxy of the stand-in, cannot be run', () => {
    expect(missingPackages(without('/usr/bin/caddy'))).toEqual(['caddy'])
  })

  it('covers curl, jq, the OpenSSH client and server, rsync, Chromium with its driver, and Caddy', () => {
    expect(all.sort()).toEqual([
      'caddy',
      'chromium',
      'chromium-driver',
      'curl',
      'jq',
      'openssh-client',
      'openssh-server',
      'rsync'
    ])
  })

  it('gives one line with the packages and the command that installs them, nothing when all are there', () => {
    const message = missingMessage(['jq', 'rsync']) ?? ''
    expect(message.split('\n')).toHaveLength(1)
    expect(message).toContain('apt-get install -y jq rsync')
    expect(missingMessage([])).toBeUndefined()
  })
})

describe('canRun', () => {
  it('looks a name up on the given PATH, and takes an absolute path as it is', () => {
    const dir = mkdtempSync(join(tmpdir(), 'system-packages-'))
    try {
      writeFileSync(join(dir, 'jq'), '#!/bin/sh\n', { mode: 0o755 })
      writeFileSync(join(dir, 'curl'), 'not executable', { mode: 0o644 })
      expect(canRun('jq', `/nonexistent:${dir}`)).toBe(true)
      expect(canRun('curl', dir)).toBe(false)
      expect(canRun('rsync', dir)).toBe(false)
      expect(canRun(join(dir, 'jq'), '')).toBe(true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('installMissing (.ci/run)', () => {
  it('does nothing when every package is there', () => {
    const calls: string[][] = []
    expect(
      installMissing(
        args => (calls.push(args), 0),
        () => true
      )
    ).toEqual({ ok: true })
    expect(calls).toEqual([])
  })

  it('fails, naming the missing packages, when apt-get update fails, and installs nothing', () => {
    const calls: string[][] = []
    const result = installMissing(args => (calls.push(args), 100), without('jq', 'rsync'))
    expect(result.ok).toBe(false)
    expect(!result.ok && result.message).toMatch(/jq, rsync/)
    expect(calls.map(args => args[0])).toEqual(['update'])
  })

  it('fails when the install fails, or leaves a package missing', () => {
    const failing = installMissing(args => (args[0] === 'install' ? 1 : 0), without('jq'))
    expect(failing.ok).toBe(false)
    const stillMissing = installMissing(() => 0, without('/usr/sbin/sshd'))
    expect(stillMissing.ok).toBe(false)
    expect(!stillMissing.ok && stillMissing.message).toMatch(/openssh-server/)
  })

  it('installs exactly the missing packages, and succeeds once they are there', () => {
    const installed = new Set<string>()
    const calls: string[][] = []
    const result = installMissing(
      args => {
        calls.push(args)
        if (args[0] === 'install') installed.add('rsync')
        return 0
      },
      program => program !== 'rsync' || installed.has('rsync')
    )
    expect(result).toEqual({ ok: true })
    expect(calls).toEqual([
      ['update', '-qq'],
      ['install', '-y', '-qq', 'rsync']
    ])
  })
})
