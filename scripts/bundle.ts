/**
 * `npm run bundle`: dist/index.cjs and dist/licenses.txt from src/index.ts, with ncc.
 *
 * The output is CommonJS although src/ is ES modules: Node starts a CommonJS entry noticeably
 * faster than an ES module of the same size (the benchmark measured about 6 to 8% of a whole
 * step), and the runner starts this file twice per job. ncc's command line picks the format from
 * package.json's "type", so this script calls ncc's API with `esm: false`. ncc reads tsconfig
 * paths (the stubs in src/bundle/) from the working directory, hence the chdir to src/.
 */
import ncc from '@vercel/ncc'
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot } from './node24.js'

const src = join(repoRoot, 'src')
const dist = join(repoRoot, 'dist')

process.chdir(src)
const { code, assets } = await ncc(join(src, 'index.ts'), {
  esm: false,
  license: 'licenses.txt',
  cache: false,
  quiet: true
})

// Whatever an earlier bundle left (an index.js, a package.json with "type") must not linger.
mkdirSync(dist, { recursive: true })
for (const name of readdirSync(dist)) rmSync(join(dist, name), { recursive: true, force: true })
writeFileSync(join(dist, 'index.cjs'), code)
for (const [name, asset] of Object.entries(assets)) writeFileSync(join(dist, name), asset.source)
for (const name of readdirSync(dist).sort()) {
  console.log(`dist/${name}`)
}
