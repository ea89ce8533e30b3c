/** action.yml is the action's public interface: check what users and the runner rely on. */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { RunTarget, type ActionConfigInterface } from 'github-action-ts-run-api'
import { parse } from 'yaml'
import { optionsOf } from '../src/core/options/option-facts.js'
import { OUTPUTS } from '../src/core/options/output-facts.js'
import { actionYmlMismatches } from '../scripts/action-yml-facts.js'

const root = fileURLToPath(new URL('..', import.meta.url))

type Entry = { description?: unknown; default?: unknown; required?: unknown }
type ActionYml = {
  name?: string
  description?: string
  inputs: Record<string, Entry>
  outputs: Record<string, Entry>
  runs: { using: string; main: string; post?: string; 'post-if'?: string }
  branding?: { icon?: string; color?: string }
}

const action = parse(readFileSync(join(root, 'action.yml'), 'utf8')) as ActionYml

describe('action.yml', () => {
  it('has a name and a description', () => {
    expect(action.name).toEqual(expect.any(String))
    expect(action.description).toEqual(expect.any(String))
  })

  it.each(Object.entries(action.inputs))('input %s has a description', (_name, input) => {
    expect(input.description).toEqual(expect.stringMatching(/\S/))
  })

  it.each(Object.entries(action.outputs))('output %s has a description', (_name, output) => {
    expect(output.description).toEqual(expect.stringMatching(/\S/))
  })

  // The runner hands every input to the action as a string; a YAML `true` or `3`
  // default would read back the same, but says the wrong thing to readers.
  it('gives every default as a string', () => {
    const notStrings = Object.entries(action.inputs)
      .filter(([, i]) => i.default !== undefined && typeof i.default !== 'string')
      .map(([name]) => name)
    expect(notStrings).toEqual([])
  })

  // The options' table (src/core/options/) is the one home of these facts: the CLI, the
  // component, --help and the README are held to it as well.
  it("has exactly the table's inputs and outputs, with its defaults and descriptions", () => {
    expect(actionYmlMismatches(action)).toEqual([])
    expect(Object.keys(action.inputs).sort()).toEqual(
      optionsOf('action')
        .map(option => option.name)
        .sort()
    )
    expect(Object.keys(action.outputs).sort()).toEqual(OUTPUTS.map(output => output.name).sort())
  })

  it('finds a difference from the table: an input too many, a default, a description, an output gone', () => {
    const { urls: _urls, ...outputs } = action.outputs
    const changed = {
      ...action,
      inputs: {
        ...action.inputs,
        stray: { description: 'x' },
        protect: { ...action.inputs.protect, default: 'true' },
        'log-bodies': { ...action.inputs['log-bodies'], description: 'Bodies.' }
      },
      outputs
    }
    expect(actionYmlMismatches(changed)).toHaveLength(4)
  })

  it('warns in the descriptions of log-bodies and log-headers that public repositories publish their logs', () => {
    for (const name of ['log-bodies', 'log-headers']) {
      expect([name, action.inputs[name].description]).toEqual([
        name,
        expect.stringContaining('public repositories are public')
      ])
    }
  })

  it('runs on node24 with a post step that always runs', () => {
    expect(action.runs.using).toBe('node24')
    expect(action.runs['post-if']).toBe('always()')
  })

  it('points main and post into dist/', () => {
    expect(action.runs.main).toMatch(/^dist\/.+\.c?js$/)
    expect(action.runs.post).toMatch(/^dist\/.+\.c?js$/)
  })

  // dist/ is committed; before the first bundle there is nothing to point at.
  const ifBundled = existsSync(join(root, 'dist')) ? it : it.skip
  ifBundled('main and post exist in the committed bundle', () => {
    expect(existsSync(join(root, action.runs.main))).toBe(true)
    expect(existsSync(join(root, action.runs.post ?? ''))).toBe(true)
  })

  // GitHub's metadata schema, as github-action-ts-run-api applies it when it loads an action:
  // it allows only its Feather icons and badge colours, among other rules a client enforces.
  const loadsAsAnAction = (metadata: ActionYml) => () =>
    RunTarget.mainJs(metadata as unknown as ActionConfigInterface, root)

  it('passes the metadata schema of GitHub actions', () => {
    expect(() => RunTarget.mainJs(join(root, 'action.yml'))).not.toThrow()
  })

  it('has Marketplace branding the schema allows, and the schema check refuses an icon it does not', () => {
    expect(action.branding?.icon).toEqual(expect.stringMatching(/\S/))
    expect(action.branding?.color).toEqual(expect.stringMatching(/\S/))
    expect(loadsAsAnAction(action)).not.toThrow()
    // `key` is not one of GitHub's icons: the same file with it is refused.
    expect(loadsAsAnAction({ ...action, branding: { ...action.branding, icon: 'key' } })).toThrow()
  })
})
