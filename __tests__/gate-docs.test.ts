/**
 * What the docs tell a user to give a browser for the gate (issue 26, item 2): Playwright's
 * `httpCredentials` limited to the app's origin, never `extraHTTPHeaders`, which Playwright sends
 * to every origin a page loads from; and, in one line each, which form of the secret is for which
 * client.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const read = (path: string) => readFileSync(join(root, path), 'utf8')
const docs = [
  'README.md',
  'action.yml',
  ...readdirSync(join(root, 'docs'))
    .filter(name => name.endsWith('.md'))
    .map(name => `docs/${name}`)
]

it.each(docs)('%s gives httpCredentials only with its origin', path => {
  // The object as written, on one line or several: from its name to its closing brace.
  const text = read(path)
  for (const found of text.matchAll(/httpCredentials\s*[:{]/g)) {
    const object = text.slice(found.index, text.indexOf('}', found.index) + 1)
    expect(object).toMatch(/\borigin\b/)
  }
})

it.each(docs)('%s names extraHTTPHeaders only to warn that it reaches every origin', path => {
  const text = read(path).replace(/\s+/g, ' ')
  const sentences = text.split(/(?<=\.)\s/).filter(part => part.includes('extraHTTPHeaders'))
  for (const sentence of sentences) expect(sentence).toMatch(/every origin/)
})

it('README and docs/traffic.md give each form of the secret its client, in one line', () => {
  const readme = read('README.md').split('\n')
  const traffic = read('docs/traffic.md').split('\n')
  const lineWith = (lines: string[], ...words: RegExp[]) =>
    lines.filter(line => words.every(word => word.test(line)))
  expect(lineWith(readme, /protect-urls/, /browser or Selenium/)).toHaveLength(1)
  expect(lineWith(readme, /httpCredentials/, /origin/, /protect-secret|GATE/)).toHaveLength(1)
  expect(lineWith(readme, /curl/, /GATE_HEADER/, /API tests/)).toHaveLength(1)
  expect(lineWith(readme, /webhook senders/, /HOOK/)).toHaveLength(1)
  const rows = traffic.filter(line => /^\| .*\| `protect-[a-z-]+` +\|/.test(line))
  expect(rows.map(row => row.split('|')[2].trim())).toEqual([
    '`protect-urls`',
    '`protect-secret`',
    '`protect-header`',
    '`protect-webhook-urls`'
  ])
  expect(rows[0]).toMatch(/browser or Selenium/)
  expect(rows[1]).toMatch(/httpCredentials.*origin/)
  expect(rows[2]).toMatch(/not browsers/)
  expect(rows[3]).toMatch(/webhook senders/)
})
