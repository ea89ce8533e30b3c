/** The size of dist/, and of what node reads of it when the runner starts the entry. */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot } from '../scripts/runner.js'
import { change, kb, pass } from './numbers.js'
import type { BenchSection } from './section.js'

const TARGETS = { distLoadedBytes: 600 * 1000 }

/** What node reads when the runner starts the entry: code, package.json (module type), maps. */
const loadedByRunner = (file: string) => /\.(m?js|cjs|json|node|map)$/.test(file)

function distSizes() {
  const dist = join(repoRoot, 'dist')
  const files: Record<string, { bytes: number; loaded: boolean }> = {}
  const walk = (dir: string, prefix: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) walk(path, `${prefix}${name}/`)
      else files[prefix + name] = { bytes: statSync(path).size, loaded: loadedByRunner(name) }
    }
  }
  walk(dist, '')
  const loadedBytes = Object.values(files)
    .filter(file => file.loaded)
    .reduce((sum, file) => sum + file.bytes, 0)
  return { files, loadedBytes }
}

export const distSection: BenchSection = {
  name: 'dist size',
  async run() {
    const dist = distSizes()
    const ok = dist.loadedBytes <= TARGETS.distLoadedBytes
    return {
      results: { dist },
      targets: { distLoaded: { limit: `<= ${TARGETS.distLoadedBytes / 1000} KB`, pass: ok } },
      report: [
        '',
        'dist/',
        ...Object.entries(dist.files).map(
          ([name, file]) =>
            `  ${name.padEnd(28)}${kb(file.bytes)}  ${file.loaded ? 'loaded by the runner' : 'not loaded'}`
        ),
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
