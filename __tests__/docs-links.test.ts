/**
 * The docs' references work as written (issue 26, item 12): every `__tests__/` path that
 * README.md, CONTRIBUTING.md or a page of docs/ names exists, and every link to a heading
 * (`#anchor`, `page.md#anchor`) reaches a heading of that page, as GitHub forms its anchors.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const pages = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(root, 'docs')).map(f => `docs/${f}`)
].filter(page => page.endsWith('.md'))
const text = (page: string) => readFileSync(join(root, page), 'utf8')

/** The page without its fenced code blocks, whose `#` lines are comments, not headings. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

it('finds the pages, and the anchors GitHub gives their headings', () => {
  expect(pages).toEqual(expect.arrayContaining(['README.md', 'docs/other-ci.md', 'docs/cli.md']))
  expect(
    anchorsOf('# One `two` [three](x.md)\n## What: it, is?\n## What: it, is?\n```sh\n# not\n```')
  ).toEqual(new Set(['one-two-three', 'what-it-is', 'what-it-is-1']))
})

it.each(pages)('%s names only __tests__ paths that exist', page => {
  const named = [...text(page).matchAll(/__tests__\/[\w./-]*[\w/]/g)].map(([path]) => path)
  expect(named.filter(path => !existsSync(join(root, path)))).toEqual([])
})

it.each(pages)('%s links only to headings that exist', page => {
  const broken: string[] = []
  for (const [, target] of prose(text(page)).matchAll(/\]\(([^)\s]*#[^)\s]+)\)/g)) {
    const [file, anchor] = target.split('#')
    if (/^[a-z]+:/i.test(file)) continue // another site's page
    const linked = file === '' ? page : normalize(join(dirname(page), file))
    if (!existsSync(join(root, linked))) broken.push(target)
    else if (!anchorsOf(text(linked)).has(decodeURIComponent(anchor))) broken.push(target)
  }
  expect(broken).toEqual([])
})
