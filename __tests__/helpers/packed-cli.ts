/**
 * The package as npm would publish it: `npm pack` of this repository, made once per Jest worker
 * (the module's state lives as long as the worker's process) and deleted when it exits. Tests
 * install it where a job would install `provision-tunnel-credentials@1`, so the files they run
 * are the ones the package ships (package.json `files`, `bin`), not the work tree.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { npmInvocation, repoRoot } from '../../scripts/node24.js'

let tarball: string | undefined

/** Absolute path of the packed tarball (`provision-tunnel-credentials-<version>.tgz`). */
export function packedTarball(): string {
  if (tarball !== undefined && existsSync(tarball)) return tarball
  const destination = mkdtempSync(join(tmpdir(), 'packed-cli-'))
  process.once('exit', () => rmSync(destination, { recursive: true, force: true }))
  const npm = npmInvocation()
  const json = execFileSync(
    npm.file,
    [...npm.args, 'pack', '--json', '--ignore-scripts', '--pack-destination', destination],
    { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }
  )
  const [{ filename }] = JSON.parse(json) as [{ filename: string }]
  tarball = join(destination, filename)
  return tarball
}

/**
 * Environment for an `npx --package <tarball>` that never reaches a registry: npm answers from
 * `cache` only (the package has no runtime dependencies, so the tarball is all it needs), and
 * asks nothing (audit, fund, update notice).
 */
export function offlineNpmEnv(cache: string): Record<string, string> {
  return {
    npm_config_offline: 'true',
    npm_config_cache: cache,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_yes: 'true'
  }
}
