/**
 * The command line's flags, generated from the options' table (src/core/options/) for the docs
 * that list them: docs/cli.md and docs/other-ci.md, between <!-- flags:start --> and
 * <!-- flags:end -->. Written by `npm run docs` (readme-tables.ts), checked by its `--check`, so a
 * new option cannot be missing from either list again.
 */
import { cliVariable, optionsOf } from '../src/core/options/option-facts.js'

/** The docs that hold the table, each between the markers of FLAGS_SECTION. */
export const FLAG_TABLE_DOCS = ['docs/cli.md', 'docs/other-ci.md'] as const
export const FLAGS_SECTION = 'flags'

/** A table cell: one line, pipes escaped. */
function cell(text: string): string {
  return text
    .trim()
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
}

/** The description's first sentence: the table is a map, the README has the rest. */
function firstSentence(description: string): string {
  return description.split(/(?<=\.)\s+(?=[A-Z`])/)[0]
}

/**
 * Every option of the action that the CLI takes, in the table's order: its flag (none for a
 * secret, which is read from its variable only), its variable, its default and what it is.
 */
export function renderFlagTable(): string {
  const rows = optionsOf('cli')
    .filter(option => option.hosts.includes('action'))
    .map(option => {
      const flag = option.secret ? '(none)' : `\`--${option.name} ${option.value}\``
      const what = option.secret
        ? `**Secret**, read from the variable only. ${firstSentence(option.description)}`
        : firstSentence(option.description)
      const fallback = option.default === '' ? '' : `\`${option.default}\``
      return `| ${cell(flag)} | \`${cliVariable(option.name)}\` | ${cell(fallback)} | ${cell(what)} |`
    })
  return ['| Flag | Variable | Default | What it is |', '|---|---|---|---|', ...rows].join('\n')
}
