/**
 * CONTRIBUTING.md's map of the source must match the tree: a folder added under src/, or at the
 * top of the repository, without a line there, or a line naming what no longer exists, fails.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')

/** The first word of each line of the fenced block under `## Layout`: the paths it names. */
function mapPaths(contributing: string): string[] {
  const section = contributing.split(/^## Layout$/m)[1]?.split(/^## /m)[0] ?? ''
  const block = section.split('```')[1] ?? ''
  return block
    .split('\n')
    .filter(line => /^\S/.test(line))
    .map(line => line.split(/\s+/)[0])
}

/** Folders git would keep: hidden ones besides .github and .ci, and .gitignore's, are not ours. */
function ignoredNames(): Set<string> {
  const ignored = readFileSync(join(root, '.gitignore'), 'utf8')
    .split('\n')
    .map(line => line.trim().replace(/\/$/, ''))
    .filter(line => line !== '' && !line.includes('*') && !line.includes('/'))
  return new Set([...ignored, '.git'])
}

function foldersUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true })
    .filter(entry => entry.isDirectory())
    .flatMap(entry => {
      const path = `${dir}/${entry.name}`
      return [`${path}/`, ...foldersUnder(path)]
    })
}

function topFolders(): string[] {
  const ignored = ignoredNames()
  return readdirSync(root, { withFileTypes: true })
    .filter(entry => entry.isDirectory() && !ignored.has(entry.name))
    .map(entry => `${entry.name}/`)
}

const listed = mapPaths(readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8'))

describe("CONTRIBUTING.md's map of the source", () => {
  it('names every folder of src/', () => {
    const missing = ['src/', ...foldersUnder('src')].filter(folder => !listed.includes(folder))
    expect(missing).toEqual([])
  })

  it('names every folder at the top of the repository', () => {
    const missing = topFolders().filter(folder => !listed.includes(folder))
    expect(missing).toEqual([])
  })

  it('names nothing that does not exist', () => {
    const gone = listed.filter(path => !existsSync(join(root, path)))
    expect(gone).toEqual([])
  })

  it('reads the paths of the block, and so would see a folder it lacks', () => {
    const map =
      '## Layout\n\ntext\n\n```\nsrc/   the product\n  note\nsrc/core/  core\n```\n\n## Next\n'
    expect(mapPaths(map)).toEqual(['src/', 'src/core/'])
    const lacking = ['src/', 'src/core/', 'src/cli/'].filter(
      folder => !mapPaths(map).includes(folder)
    )
    expect(lacking).toEqual(['src/cli/'])
  })
})
