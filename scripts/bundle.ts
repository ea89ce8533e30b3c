/**
 * `npm run bundle`: dist/index.cjs and dist/licenses.txt from src/github/index.ts, dist/cli/ (the
 * `tunnel-credentials` command) from src/cli/bin.ts, and dist/tunnel/, with ncc.
 *
 * The output is CommonJS although src/ is ES modules: Node starts a CommonJS entry noticeably
 * faster than an ES module of the same size (the benchmark measured about 6 to 8% of a whole
 * step), and the runner starts this file twice per job. ncc's command line picks the format from
 * package.json's "type", so this script calls ncc's API with `esm: false`. ncc reads tsconfig
 * paths (the stubs in src/bundle/) from the working directory, hence the chdir to src/.
 * The build fails when dist/ ends up holding an executable or a native binary
 * (scripts/dist-binaries.ts).
 */
import ncc from '@vercel/ncc'
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, sep } from 'node:path'
import { deferFsPromises } from './defer-fs-promises.js'
import { assertNoBinaries } from './dist-binaries.js'
import { repoRoot } from './node24.js'

const src = join(repoRoot, 'src')
const dist = join(repoRoot, 'dist')

process.chdir(src)

/**
 * Files that bundled modules reach by a path and that must not be copied into dist/. ssh2's
 * client loads its agent module, whose Pageant support runs util/pagent.exe (a Windows program);
 * the tunnel process never uses an SSH agent (it logs in with the token or with a key file), so
 * ncc leaves ssh2's own path to the program in place and copies nothing.
 */
const NEVER_COPIED = [join('node_modules', 'ssh2', 'util', 'pagent.exe')]

const leaveOut = (path: string) =>
  NEVER_COPIED.some(file => path.endsWith(`${sep}${file}`)) ? false : undefined

/** One bundle: its code as `<dir>/index.cjs`, and its assets (chunks, licenses) beside it. */
async function bundle(
  entry: string,
  dir: string,
  externals: string[] = [],
  patch: (code: string) => string = code => code
): Promise<void> {
  const { code, assets } = await ncc(join(src, entry), {
    esm: false,
    license: 'licenses.txt',
    externals,
    customEmit: leaveOut,
    cache: false,
    quiet: true
  })
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'index.cjs'), patch(code))
  for (const [name, asset] of Object.entries(assets)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true })
    writeFileSync(join(dir, name), asset.source)
  }
}

// Whatever an earlier bundle left (an index.js, a package.json with "type") must not linger.
mkdirSync(dist, { recursive: true })
for (const name of readdirSync(dist)) rmSync(join(dist, name), { recursive: true, force: true })
await bundle(join('github', 'index.ts'), dist, [], deferFsPromises)
// The steps load their tunnel code as a chunk (`<id>.index.js`) only with `expose`. ncc names it
// .js and require()s it; under the repository's "type": "module" Node would read it as an ES
// module, so dist/ says plainly that its .js files are CommonJS.
writeFileSync(join(dist, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`)
// The CLI (package.json's bin), a second host of the same core. Its own shebang line: npm links
// bin files as they are, and a shell runs the link.
await bundle(
  join('cli', 'bin.ts'),
  join(dist, 'cli'),
  [],
  code => `#!/usr/bin/env node\n${code.replace(/^#!.*\n/, '')}`
)
// The tunnel process, loaded only by steps with `expose`, so a plain step never loads ssh2. Its
// native addons stay out, so dist/ is the same whether or not they were built on this machine,
// and loads on any OS: ssh2 falls back to its JavaScript code when sshcrypto.node is missing, and
// cpu-features is mapped to a stub in tsconfig.json.
await bundle(join('core', 'tunnel', 'keeper', 'entry.cjs'), join(dist, 'tunnel'), [
  './crypto/build/Release/sshcrypto.node'
])
for (const name of readdirSync(dist, { recursive: true }).map(String).sort()) {
  console.log(`dist/${name}`)
}
// The runner executes dist/ as committed: no executable or native binary may ride along.
assertNoBinaries(dist)
