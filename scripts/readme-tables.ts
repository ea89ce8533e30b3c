/**
 * Checks action.yml against the options' table (src/core/options/), then writes the inputs and
 * outputs tables, generated from action.yml, into
 * README.md between <!-- inputs:start -->/<!-- inputs:end --> and
 * <!-- outputs:start -->/<!-- outputs:end -->, and the CLI's flag table (flag-tables.ts) into
 * docs/cli.md and docs/other-ci.md between <!-- flags:start -->/<!-- flags:end -->.
 *   npm run docs              rewrite README.md and those docs
 *   npm run docs -- --check   exit 1 when one of them differs from what is generated
 * Either exits 1 when action.yml differs from the table (fix action.yml or the table by hand).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { format, resolveConfig, type Options } from 'prettier'
import { parse } from 'yaml'
import { actionYmlMismatches } from './action-yml-facts.js'
import { FLAG_TABLE_DOCS, FLAGS_SECTION, renderFlagTable } from './flag-tables.js'

type Entry = { description?: string; required?: boolean; default?: string }
export type ActionMetadata = {
  inputs?: Record<string, Entry>
  outputs?: Record<string, Entry>
}

/** A table cell: one line, pipes escaped. */
function cell(text: string): string {
  return text
    .trim()
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
}

export function renderInputsTable(action: ActionMetadata): string {
  const rows = Object.entries(action.inputs ?? {}).map(([name, i]) => {
    const required = i.required === true ? 'yes' : 'no'
    const def = i.default === undefined || i.default === '' ? '' : `\`${i.default}\``
    return `| \`${name}\` | ${required} | ${def} | ${cell(i.description ?? '')} |`
  })
  return ['| Input | Required | Default | Description |', '|---|---|---|---|', ...rows].join('\n')
}

export function renderOutputsTable(action: ActionMetadata): string {
  const rows = Object.entries(action.outputs ?? {}).map(
    ([name, o]) => `| \`${name}\` | ${cell(o.description ?? '')} |`
  )
  return ['| Output | Description |', '|---|---|', ...rows].join('\n')
}

/** Replaces what stands between the markers of `section`; throws when they are missing. */
export function replaceSection(
  readme: string,
  section: string,
  body: string,
  file = 'README.md'
): string {
  const start = `<!-- ${section}:start -->`
  const end = `<!-- ${section}:end -->`
  const from = readme.indexOf(start)
  const to = readme.indexOf(end)
  if (from < 0 || to < from) throw new Error(`${file} has no ${start} ... ${end} markers`)
  // Blank lines around the table: the form Prettier keeps, so format:check agrees.
  return `${readme.slice(0, from + start.length)}\n\n${body.trim()}\n\n${readme.slice(to)}`
}

/**
 * README with both tables regenerated from the action.yml text, each table laid
 * out by Prettier (aligned columns) with the repository's options.
 */
export async function updateReadme(
  readme: string,
  actionYml: string,
  prettierOptions: Options = {}
): Promise<string> {
  const action = parse(actionYml) as ActionMetadata
  const pretty = (table: string) => format(table, { ...prettierOptions, parser: 'markdown' })
  const withInputs = replaceSection(readme, 'inputs', await pretty(renderInputsTable(action)))
  return replaceSection(withInputs, 'outputs', await pretty(renderOutputsTable(action)))
}

/** A doc with its flag table regenerated from the options' table, laid out by Prettier. */
export async function updateFlagTable(
  doc: string,
  file: string,
  prettierOptions: Options = {}
): Promise<string> {
  const table = await format(renderFlagTable(), { ...prettierOptions, parser: 'markdown' })
  return replaceSection(doc, FLAGS_SECTION, table, file)
}

/** The repository's Prettier options for README.md. */
export async function readmePrettierOptions(): Promise<Options> {
  return (await resolveConfig('README.md')) ?? {}
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check')
  const readme = readFileSync('README.md', 'utf8')
  const actionYml = readFileSync('action.yml', 'utf8')
  const mismatches = actionYmlMismatches(parse(actionYml) as ActionMetadata)
  if (mismatches.length > 0) {
    console.error(`action.yml differs from the options' table:\n  ${mismatches.join('\n  ')}`)
    process.exit(1)
  }
  const expected = await updateReadme(readme, actionYml, await readmePrettierOptions())
  let stale = false
  if (expected === readme) {
    console.log('README.md tables match action.yml')
  } else if (check) {
    console.error(
      'README.md tables differ from action.yml: run `npm run docs` and commit README.md'
    )
    stale = true
  } else {
    writeFileSync('README.md', expected)
    console.log('README.md tables updated from action.yml')
  }
  for (const file of FLAG_TABLE_DOCS) {
    const doc = readFileSync(file, 'utf8')
    const generated = await updateFlagTable(doc, file, (await resolveConfig(file)) ?? {})
    if (generated === doc) {
      console.log(`${file} flag table matches the options' table`)
    } else if (check) {
      console.error(
        `${file} flag table differs from the options' table: run \`npm run docs\` and commit ${file}`
      )
      stale = true
    } else {
      writeFileSync(file, generated)
      console.log(`${file} flag table updated from the options' table`)
    }
  }
  if (stale) process.exit(1)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
