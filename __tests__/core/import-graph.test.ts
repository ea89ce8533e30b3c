/**
 * The core's layers, as its imports draw them: no file reaches itself through others (a circle
 * makes its files one layer that cannot be read or loaded apart), and the file both sides of the
 * tunnel share imports nothing of the core but the options' request defaults, themselves a leaf,
 * so the tunnel process's bundle stays small.
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  importCycles,
  importGraph,
  outsideImports,
  type ImportGraph
} from '../helpers/import-graph.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const core = importGraph(join(root, 'src', 'core'), root)

describe("the core's imports", () => {
  it('form no cycle', () => {
    expect(core.size).toBeGreaterThan(50)
    expect(importCycles(core)).toEqual([])
  })

  it('keep the protocol of the tunnel a leaf: node builtins, and the defaults it shares with the options', () => {
    // The one file of its own: the defaults of the request log, the gate and the proof, a leaf too.
    const defaults = 'src/core/options/request-handling-defaults.ts'
    expect(core.get('src/core/tunnel/protocol.ts')).toEqual([defaults])
    expect(core.get(defaults)).toEqual([])
    expect(outsideImports(join(root, defaults))).toEqual([])
    const outside = outsideImports(join(root, 'src/core/tunnel/protocol.ts'))
    expect(outside.filter(name => !name.startsWith('node:'))).toEqual([])
  })

  it('keep the settings primitives below the kinds, and the kinds below their assembly', () => {
    const upward = (from: string, to: string[]) =>
      [...core].flatMap(([file, targets]) =>
        file.startsWith(from) ? targets.filter(t => to.some(p => t.startsWith(p))) : []
      )
    expect(upward('src/core/settings/', ['src/core/kinds/', 'src/core/assembly/'])).toEqual([])
    expect(upward('src/core/kinds/', ['src/core/assembly/'])).toEqual([])
    expect(upward('src/core/service/', ['src/core/settings/', 'src/core/kinds/'])).toEqual([])
  })
})

describe('the cycle finder', () => {
  it('finds a circle of three and a file that imports itself, and nothing in a chain', () => {
    const graph: ImportGraph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
      ['f', ['d']]
    ])
    expect(importCycles(graph)).toEqual([['a', 'b', 'c'], ['e']])
  })
})
