/**
 * The shared-credential file: the one line a GitLab dotenv report reads, written only with what a
 * sealed credential holds, and recognised as this tool's only when it is exactly that line.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isOwnSharedFile, writeSharedFile } from '../../src/cli/shared-file.js'

const SEALED = 'ptc1.eyJ2IjoxfQ.c2FsdA.aXY.Ym9keS10YWc-_'
let dir: string
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'shared-file-'))))
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('the shared-credential file', () => {
  it('holds SVC_SHARED_CREDENTIAL=SEALED and nothing else, mode 0600, and reads as its own', () => {
    const path = join(dir, 'shared.env')
    writeSharedFile(path, SEALED)
    expect(readFileSync(path, 'utf8')).toBe(`SVC_SHARED_CREDENTIAL=${SEALED}\n`)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(isOwnSharedFile(path)).toBe(true)
  })

  it.each([
    ['a line break', `${SEALED}\nNODE_OPTIONS=--require=/tmp/x.js`],
    ['a space', `${SEALED} x`],
    ['nothing', '']
  ])('refuses a value with %s, and writes nothing', (_case, value) => {
    const path = join(dir, 'shared.env')
    expect(() => writeSharedFile(path, value)).toThrow(
      'the sealed credential holds characters it never has'
    )
    expect(() => statSync(path)).toThrow()
  })

  it('refuses a line longer than a GitLab dotenv report may be (5 KB), and writes nothing', () => {
    const path = join(dir, 'shared.env')
    const longest = `ptc1.${'a'.repeat(5 * 1024 - 'SVC_SHARED_CREDENTIAL=ptc1.'.length - 1)}`
    writeSharedFile(path, longest)
    expect(readFileSync(path, 'utf8')).toHaveLength(5 * 1024)
    rmSync(path)
    expect(() => writeSharedFile(path, `${longest}a`)).toThrow(
      'the sealed credential takes 5121 bytes, more than the 5120 GitLab accepts in a dotenv report'
    )
    expect(() => statSync(path)).toThrow()
  })

  it.each([
    ['a project .env', 'SVC_SHARED_CREDENTIAL=ptc1.a\nDATABASE_URL=postgres://x\n'],
    ['another variable', 'OTHER=ptc1.a\n'],
    ['a comment first', `# mine\nSVC_SHARED_CREDENTIAL=${SEALED}\n`]
  ])('is not its own when it holds %s', (_case, text) => {
    const path = join(dir, 'shared.env')
    writeFileSync(path, text)
    expect(isOwnSharedFile(path)).toBe(false)
  })

  it('is not its own through a link, even to a file it wrote', () => {
    const path = join(dir, 'shared.env')
    writeSharedFile(path, SEALED)
    symlinkSync(path, join(dir, 'link.env'))
    expect(isOwnSharedFile(join(dir, 'link.env'))).toBe(false)
  })
})
