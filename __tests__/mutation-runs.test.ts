/**
 * The runs of `npm run mutate` (stryker/*.config.mjs) name only files that exist. Stryker passes
 * over a `mutate` entry that matches nothing without a word, so a module that was renamed or
 * replaced (as `workflow-command.ts` was by `log-commands.ts`) silently left every run.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join, posix } from 'node:path'
import { pathToFileURL } from 'node:url'
import { repoRoot } from '../scripts/runner.js'

interface MutationRun {
  mutate: string[]
  tsconfigFile: string
  jest: { config: { testMatch: string[] } }
}

const configNames = readdirSync(join(repoRoot, 'stryker')).filter(name =>
  name.endsWith('.config.mjs')
)

/** Every file of the checkout, committed or not yet (but not ignored), that `pattern` matches. */
function filesMatching(pattern: string): string[] {
  return execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '-z', '--', `:(glob)${pattern}`],
    { cwd: repoRoot, encoding: 'utf8' }
  )
    .split('\0')
    .filter(Boolean)
}

async function loadRun(name: string): Promise<MutationRun> {
  const module = (await import(pathToFileURL(join(repoRoot, 'stryker', name)).href)) as {
    default: MutationRun
  }
  return module.default
}

describe('the mutation runs', () => {
  it('are each run by npm run mutate', () => {
    const scripts = (
      JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>
      }
    ).scripts
    for (const name of configNames) expect(scripts.mutate).toContain(`stryker/${name}`)
  })

  it('reach the parsers that guard the log, the settings and the tunnel', async () => {
    const runs = await Promise.all(configNames.map(loadRun))
    const mutated = runs.flatMap(run =>
      run.mutate.filter(entry => !entry.startsWith('!')).flatMap(filesMatching)
    )
    expect(mutated).toEqual(
      expect.arrayContaining([
        'src/core/text/log-commands.ts',
        'src/core/settings/request-handling.ts',
        'src/core/tunnel/keeper/http/rules.ts',
        'src/core/tunnel/keeper/http/framing.ts',
        'src/core/tunnel/keeper/http/sniff.ts',
        'src/core/tunnel/keeper/http/gate.ts',
        'src/core/tunnel/request-log/redact.ts',
        'src/core/tunnel/request-log/header-rule.ts',
        'src/core/tunnel/request-log/url-redact.ts',
        'src/core/tunnel/request-log/secret-pattern.ts',
        'src/cli/har-read.ts'
      ])
    )
  })

  it.each(configNames)(
    '%s mutates only files that exist, each in its checked project',
    async name => {
      const run = await loadRun(name)
      const tsconfig = JSON.parse(readFileSync(join(repoRoot, run.tsconfigFile), 'utf8')) as {
        include: string[]
      }
      const checked = new Set(
        tsconfig.include.flatMap(entry => {
          const pattern = posix.normalize(posix.join(posix.dirname(run.tsconfigFile), entry))
          const found = filesMatching(pattern)
          expect({ tsconfigInclude: entry, matches: found.length > 0 }).toEqual({
            tsconfigInclude: entry,
            matches: true
          })
          return found
        })
      )
      const mutated = new Set<string>()
      for (const entry of run.mutate) {
        const excluded = entry.startsWith('!')
        const found = filesMatching(excluded ? entry.slice(1) : entry)
        // A name that matches nothing is what this test is for: say which one.
        expect({ mutate: entry, matches: found.length > 0 }).toEqual({
          mutate: entry,
          matches: true
        })
        for (const file of found) {
          if (excluded) mutated.delete(file)
          else mutated.add(file)
        }
      }
      // A mutant in a file outside the checker's project is not checked for compiling.
      for (const file of mutated)
        expect({ mutated: file, checked: checked.has(file) }).toEqual({
          mutated: file,
          checked: true
        })
    }
  )

  it.each(configNames)('%s runs tests that exist', async name => {
    const run = await loadRun(name)
    for (const pattern of run.jest.config.testMatch) {
      const found = filesMatching(pattern.replace('<rootDir>/', ''))
      expect({ tests: pattern, matches: found.length > 0 }).toEqual({
        tests: pattern,
        matches: true
      })
    }
  })
})
