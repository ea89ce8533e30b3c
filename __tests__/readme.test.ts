/** The README's inputs and outputs tables are generated from action.yml and must not drift. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { format } from 'prettier'
import {
  readmePrettierOptions,
  renderInputsTable,
  renderOutputsTable,
  replaceSection,
  updateFlagTable,
  updateReadme
} from '../scripts/readme-tables.js'
import { FLAG_TABLE_DOCS } from '../scripts/flag-tables.js'
import { resolveConfig } from 'prettier'
import { parse } from 'yaml'
import { parseExpose } from '../src/core/settings/expose.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const read = (name: string) => readFileSync(join(root, name), 'utf8')

describe('README.md', () => {
  it('has the inputs and outputs tables that action.yml generates (run `npm run docs`)', async () => {
    const readme = read('README.md')
    const expected = await updateReadme(readme, read('action.yml'), await readmePrettierOptions())
    expect(readme).toBe(expected)
  })

  // Issue 26, item 12: the gate's block read `.web` after an example whose only entry is `app`.
  it("reads each entry's URL by a name the tunnel step's expose gives", () => {
    const blocks = [...read('README.md').matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map(m => m[1])
    const step = blocks.find(block => /^\s*- id: tunnel$/m.test(block))!
    const exposed = /^\s*expose: (\S+)/m.exec(step)![1]
    const names = parseExpose(exposed, name => name).map(entry => entry.name)
    const lookups = blocks.flatMap(block => [
      ...block.matchAll(/fromJSON\(steps\.tunnel\.outputs\.[\w-]+\)\.([\w-]+)/g)
    ])
    expect(lookups.length).toBeGreaterThan(0)
    for (const [, name] of lookups) expect(names).toContain(name)
  })
})

// Issue 28: the README shows the matrix example of `share` in at most 15 lines, and stays within
// 300 lines; the whole workflow it is cut from is in docs/sharing.md, which actionlint checks.
describe('README.md, the matrix example of share', () => {
  const readme = read('README.md')
  const blocks = [...readme.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map(m => m[1])
  const example = blocks.find(block => /^\s+share: use$/m.test(block))

  it('stays within 300 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300)
  })

  it('shows a matrix job that uses the shared credential, in at most 15 lines', () => {
    expect(example).toBeDefined()
    expect(example!.trimEnd().split('\n').length).toBeLessThanOrEqual(15)
    expect(example).toMatch(/^\s+strategy: .*matrix/m)
    expect(example).toContain('${{ needs.setup.outputs.shared-credential }}')
    expect(example).toContain('web-${{ strategy.job-index }}=3000')
    const section = readme.slice(readme.indexOf('## One credential for a whole run'))
    expect(section.slice(0, section.indexOf('```'))).toContain('(docs/sharing.md)')
  })

  it("is docs/sharing.md's matrix job: the same keys, and steps it holds", () => {
    type Job = Record<string, unknown> & { steps: unknown[] }
    const job = Object.values(parse(example!) as Record<string, Job>)[0]
    const page = read('docs/sharing.md')
    const workflow = [...page.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)]
      .map(m => parse(m[1]) as { jobs?: Record<string, Job> })
      .find(doc => doc.jobs !== undefined)!
    const same = Object.values(workflow.jobs!).find(other => other.needs === job.needs)!
    const { steps, ...rest } = job
    const { steps: allSteps, ...otherRest } = same
    expect(rest).toEqual(otherRest)
    for (const step of steps) expect(allSteps).toContainEqual(step)
  })
})

// Issue 26, item 12: both lists stopped before --log-requests, --log-bodies, --log-headers,
// --protect and --prove-url; they are generated now, and `npm run docs -- --check` checks them.
describe.each(FLAG_TABLE_DOCS)('%s', file => {
  it("has the flag table the options' table generates (run `npm run docs`)", async () => {
    const doc = read(file)
    expect(doc).toBe(await updateFlagTable(doc, file, (await resolveConfig(file)) ?? {}))
  })

  it('lists every flag of the action, the traffic options included', () => {
    const section = read(file).split('<!-- flags:')[1]
    for (const flag of [
      '--expose',
      '--log-requests',
      '--log-bodies',
      '--log-headers',
      '--protect',
      '--prove-url',
      '--tunnel-host-key'
    ]) {
      expect(section).toContain(`\`${flag} `)
    }
  })
})

describe('table rendering', () => {
  const action = {
    inputs: {
      'base-url': { description: 'Where the service is.\nMust be https.', required: true },
      revoke: { description: 'Revoke at the end | or not.', required: false, default: 'true' },
      environment: { description: 'Environment.', default: '' }
    },
    outputs: { token: { description: 'The token.' } }
  }

  it('renders inputs with required, default and a one-line description', () => {
    expect(renderInputsTable(action)).toBe(
      [
        '| Input | Required | Default | Description |',
        '|---|---|---|---|',
        '| `base-url` | yes |  | Where the service is. Must be https. |',
        '| `revoke` | no | `true` | Revoke at the end \\| or not. |',
        '| `environment` | no |  | Environment. |'
      ].join('\n')
    )
  })

  it('renders outputs', () => {
    expect(renderOutputsTable(action)).toBe(
      ['| Output | Description |', '|---|---|', '| `token` | The token. |'].join('\n')
    )
  })

  it('replaces only what stands between the markers', () => {
    const readme = 'a\n<!-- inputs:start -->\nold\n<!-- inputs:end -->\nb\n'
    expect(replaceSection(readme, 'inputs', 'new')).toBe(
      'a\n<!-- inputs:start -->\n\nnew\n\n<!-- inputs:end -->\nb\n'
    )
  })

  it('lays the tables out as Prettier does, so format:check and this check agree', async () => {
    const readme =
      '# A\n\n<!-- inputs:start -->\n<!-- inputs:end -->\n\n<!-- outputs:start -->\n<!-- outputs:end -->\n'
    const updated = await updateReadme(readme, 'outputs:\n  token:\n    description: The token.\n')
    expect(updated).toContain(
      '| Output  | Description |\n| ------- | ----------- |\n| `token` | The token.  |'
    )
    expect(await format(updated, { parser: 'markdown' })).toBe(updated)
  })

  it('says which markers are missing', () => {
    expect(() => replaceSection('no markers', 'outputs', 'x')).toThrow(
      'README.md has no <!-- outputs:start --> ... <!-- outputs:end --> markers'
    )
  })
})
