/**
 * The walls around the options' table (src/core/options/): no other file of src/ names a secret
 * option, in any of the forms a user or a runner spells it, so every list of secrets (to mask, to
 * refuse on a command line, to keep from `run`'s command, to clear from /proc) comes from the
 * table; and the table imports nothing above it, so any layer may read it.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { cliVariable, SECRET_OPTION_NAMES } from '../src/core/options/option-facts.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const OPTIONS_DIR = join(root, 'src', 'core', 'options')

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(path) : [path]
  })
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * Each form of a secret option, as a pattern that finds it in any text, in any case: the input
 * name (`api-key`, also inside `--api-key` and `input api-key`), the runner's variable for the
 * input (`INPUT_API-KEY`) and the CLI's (`SVC_API_KEY`). A name inside a longer word is another
 * word: `X-API-Key` is a header, `SVC_TUNNEL_TOKEN` the variable the CLI writes.
 */
function secretForms(): { form: string; pattern: RegExp }[] {
  return SECRET_OPTION_NAMES.flatMap(name => [
    { form: name, pattern: new RegExp(`(?<![\\w]|[A-Za-z0-9]-)${escaped(name)}(?![\\w-])`, 'gi') },
    ...[`INPUT_${name.toUpperCase()}`, cliVariable(name)].map(form => ({
      form,
      pattern: new RegExp(`(?<![\\w-])${escaped(form)}(?![\\w-])`, 'gi')
    }))
  ])
}

/** Where a text names a secret option: each form found, with its offset. */
function secretNamesIn(text: string): { form: string; at: number; found: string }[] {
  return secretForms()
    .flatMap(({ form, pattern }) =>
      [...text.matchAll(pattern)].map(match => ({ form, at: match.index, found: match[0] }))
    )
    .sort((a, b) => a.at - b.at)
}

/**
 * Texts that spell a secret option's name and mean something else, each with why. Every one
 * must still match something, so that a stale entry is noticed and removed.
 */
const NOT_THE_OPTION = [
  {
    file: 'src/core/tunnel/request-log/header-rule.ts',
    text: "'api-key',",
    why: 'a part of header names the request log redacts (X-Api-Key), not the option'
  }
]

/** The findings outside the table, less those inside an exempt text of their file. */
function secretNamesOutsideTable(files: string[]): {
  findings: string[]
  exemptionsUsed: Set<number>
} {
  const findings: string[] = []
  const exemptionsUsed = new Set<number>()
  for (const file of files) {
    const path = relative(root, file).split(sep).join('/')
    const text = readFileSync(file, 'utf8')
    for (const hit of secretNamesIn(text)) {
      const exemption = NOT_THE_OPTION.findIndex(
        ({ file: exempt, text: words }) =>
          exempt === path &&
          [...text.matchAll(new RegExp(escaped(words), 'g'))].some(
            ({ index }) => index <= hit.at && hit.at + hit.found.length <= index + words.length
          )
      )
      if (exemption === -1) {
        const line = text.slice(0, hit.at).split('\n').length
        findings.push(`${path}:${line} names ${hit.found}`)
      } else exemptionsUsed.add(exemption)
    }
  }
  return { findings, exemptionsUsed }
}

/** The imports of a file of the table that leave the table: neither node builtins nor its own. */
function importsAboveTable(file: string, text: string): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true)
  return importedFiles
    .map(imported => imported.fileName)
    .filter(specifier => {
      if (specifier.startsWith('node:')) return false
      if (!specifier.startsWith('.')) return true
      const target = resolve(dirname(file), specifier)
      return dirname(target) !== OPTIONS_DIR && !target.startsWith(`${OPTIONS_DIR}${sep}`)
    })
}

describe("the options' table's walls", () => {
  const outside = filesUnder(join(root, 'src')).filter(
    file => !file.startsWith(`${OPTIONS_DIR}${sep}`)
  )

  it('finds every form of every secret option, in any case, and not inside longer words', () => {
    const planted = [
      "options.read('api-key')",
      'tunnel-credentials provision --Tunnel-Token x',
      'INPUT_API-KEY=1',
      'echo "$SVC_API_KEY"',
      'env.svc_input_tunnel_token'
    ].join('\n')
    expect(secretNamesIn(planted).map(hit => hit.found)).toEqual([
      'api-key',
      'Tunnel-Token',
      'INPUT_API-KEY',
      'SVC_API_KEY',
      'svc_input_tunnel_token'
    ])
    const others = "X-API-Key: k; SVC_TUNNEL_TOKEN=t; apiKey; my-api-key-file; 'api-keys'"
    expect(secretNamesIn(others)).toEqual([])
  })

  it('no file of src/ outside the table names a secret option', () => {
    expect(outside.length).toBeGreaterThan(100)
    const { findings, exemptionsUsed } = secretNamesOutsideTable(outside)
    expect(findings).toEqual([])
    expect(NOT_THE_OPTION.filter((_, index) => !exemptionsUsed.has(index))).toEqual([])
  })

  it('the table imports only its own files and node builtins', () => {
    const own = filesUnder(OPTIONS_DIR)
    expect(own.length).toBeGreaterThan(5)
    expect(
      own.flatMap(file =>
        importsAboveTable(file, readFileSync(file, 'utf8')).map(
          specifier => `${relative(root, file)} imports ${specifier}`
        )
      )
    ).toEqual([])
  })

  it('sees an import that leaves the table, of a type too, and lets its own and builtins be', () => {
    const file = join(OPTIONS_DIR, 'planted.ts')
    const text = [
      "import type { KindName } from '../settings/types.js'",
      "import { x } from './option-shape.js'",
      "import { join } from 'node:path'",
      "import { parse } from 'yaml'",
      "export { y } from '../../cli/help.js'"
    ].join('\n')
    expect(importsAboveTable(file, text)).toEqual([
      '../settings/types.js',
      'yaml',
      '../../cli/help.js'
    ])
  })
})
