/** The size of dist/, and of what node reads of it when the runner starts the entry. */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot } from '../scripts/runner.js'
import { change, kb, pass } from './numbers.js'
import type { BenchSection } from './section.js'

const TARGETS = { distLoadedBytes: 600 * 1000 }

/** What node reads when the runner starts the entry: code, package.json (module type), maps. */
const isCode = (file: string) => /\.(m?js|cjs|json|node|map)$/.test(file)
// dist/tunnel/ is the tunnel process's own bundle: only that detached process loads it, and only
// for steps with `expose`, so it is reported beside the steps' figure, not in it. dist/cli/ is the
// command-line tool's, for other CI systems: the runner never loads it (its size is the packed
// tarball's target, in the cli section).
const TUNNEL_PROCESS = 'tunnel/'
const CLI = 'cli/'
const ownBundle = (name: string) => name.startsWith(TUNNEL_PROCESS) || name.startsWith(CLI)

function distSizes() {
  const dist = join(repoRoot, 'dist')
  const files: Record<string, { bytes: number; loaded: boolean }> = {}
  const walk = (dir: string, prefix: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) walk(path, `${prefix}${name}/`)
      else
        files[prefix + name] = {
          bytes: statSync(path).size,
          loaded: isCode(name) && !ownBundle(prefix + name)
        }
    }
  }
  walk(dist, '')
  const loadedBytes = Object.values(files)
    .filter(file => file.loaded)
    .reduce((sum, file) => sum + file.bytes, 0)
  const tunnelProcessBytes = Object.entries(files)
    .filter(([name]) => name.startsWith(TUNNEL_PROCESS) && isCode(name))
    .reduce((sum, [, file]) => sum + file.bytes, 0)
  return { files, loadedBytes, tunnelProcessBytes }
}

function loadedBy(name: string, loaded: boolean): string {
  if (loaded) return 'loaded by the runner'
  if (!isCode(name)) return 'not loaded'
  if (name.startsWith(TUNNEL_PROCESS)) return 'loaded by the tunnel process (expose only)'
  return name.startsWith(CLI) ? 'loaded by tunnel-credentials (other CI systems)' : 'not loaded'
}

export const distSection: BenchSection = {
  name: 'dist size',
  async run() {
    const dist = distSizes()
    const ok = dist.loadedBytes <= TARGETS.distLoadedBytes
    return {
      results: { dist },
      targets: {
        distLoaded: {
          figure: `${(dist.loadedBytes / 1000).toFixed(1)} KB`,
          limit: `<= ${TARGETS.distLoadedBytes / 1000} KB`,
          pass: ok
        }
      },
      report: [
        '',
        'dist/',
        ...Object.entries(dist.files).map(
          ([name, file]) => `  ${name.padEnd(28)}${kb(file.bytes)}  ${loadedBy(name, file.loaded)}`
        ),
        `  ${'tunnel process'.padEnd(28)}${kb(dist.tunnelProcessBytes)}  (no target: a separate process, only with expose)`,
        `  ${'loaded together'.padEnd(28)}${kb(dist.loadedBytes)}  target <= ${TARGETS.distLoadedBytes / 1000} KB  ${pass(ok)}`
      ],
      compare: previous => {
        const before = (previous.dist as { loadedBytes?: number } | undefined)?.loadedBytes
        return change(
          'dist loaded',
          before === undefined ? undefined : before / 1000,
          dist.loadedBytes / 1000,
          'KB'
        )
      }
    }
  }
}
