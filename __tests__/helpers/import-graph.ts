/**
 * The TypeScript import graph of a source folder, and the cycles in it: a small finder over
 * TypeScript's own pre-processor (no dependency of its own). Type-only imports count too: a
 * circle of types still ties the files into one layer.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'

export type ImportGraph = Map<string, string[]>

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.(ts|cts|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

/** `./x.js` → the `./x.ts` beside it; undefined for packages and node builtins. */
function resolveLocal(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined
  const base = resolve(dirname(from), specifier)
  const candidates = [base.replace(/\.(c|m)?js$/, '.$1ts'), base, `${base}.ts`]
  return candidates.find(candidate => existsSync(candidate) && candidate.endsWith('ts'))
}

/** Every file under `root`, by its path relative to `base`, with the local files it imports. */
export function importGraph(root: string, base: string): ImportGraph {
  const graph: ImportGraph = new Map()
  for (const file of sourceFiles(root)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
    const targets = importedFiles
      .map(imported => resolveLocal(file, imported.fileName))
      .filter((target): target is string => target !== undefined)
      .map(target => relative(base, target))
    graph.set(relative(base, file), [...new Set(targets)])
  }
  return graph
}

/** The packages and builtins a file imports, by specifier. */
export function outsideImports(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
  return importedFiles.map(imported => imported.fileName).filter(name => !name.startsWith('.'))
}

/**
 * The strongly connected groups of more than one file (or a file that imports itself), each
 * sorted: Tarjan's algorithm, iterative enough for a source tree's depth.
 */
export function importCycles(graph: ImportGraph): string[][] {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const visit = (file: string): void => {
    index.set(file, counter)
    low.set(file, counter)
    counter++
    stack.push(file)
    onStack.add(file)
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(file, Math.min(low.get(file)!, low.get(next)!))
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!))
      }
    }
    if (low.get(file) !== index.get(file)) return
    const group: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      group.push(member)
    } while (member !== file)
    if (group.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(group.sort())
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file)
  return cycles
}
