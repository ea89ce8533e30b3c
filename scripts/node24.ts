/**
 * The runner runs this action on Node 24; this machine's node may be older. The npm package
 * node-<os>-<arch>@24 ships the real binary, so no download step is needed. Shared by the
 * end-to-end tests, the demo and the benchmark; concurrent callers (Jest workers) take a lock
 * so that only one of them runs npm.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs'
import { join, posix, win32 } from 'node:path'
import { fileURLToPath } from 'node:url'

export const repoRoot = fileURLToPath(new URL('..', import.meta.url))

const packageName = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`
// Its own npm prefix, not the project's node_modules: there the package would link
// node_modules/.bin/node, and every npm script (the tests included) would run on Node 24
// instead of the Node the developer or CI chose.
export const node24Prefix = join(repoRoot, 'node_modules', '.cache', 'node24')
const binary = join(
  node24Prefix,
  'node_modules',
  packageName,
  'bin',
  process.platform === 'win32' ? 'node.exe' : 'node'
)

let checked: string | undefined

function version(node: string): string | undefined {
  try {
    return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()
  } catch {
    return undefined
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/** Runs `fn` while holding the lock `name` (one Jest worker at a time across processes). */
export function withLock<T>(fn: () => T, name = 'node24'): T {
  const lock = join(repoRoot, 'node_modules', `.${name}.lock`)
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      // A lock left by a killed process would block forever; npm takes well under 2 minutes.
      const held = statSync(lock, { throwIfNoEntry: false })
      if (held && Date.now() - held.mtimeMs > 120_000)
        rmSync(lock, { recursive: true, force: true })
      else sleepSync(200)
    }
  }
  try {
    return fn()
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

/**
 * How to run npm without a shell, as a file and the arguments that come before npm's own. On
 * Windows `npm` is npm.cmd, which Node starts only through a shell; running npm's JavaScript
 * entry with this Node works everywhere. npm names it in `npm_execpath` for the scripts it runs
 * (`npm test`); otherwise it sits where Node's installers put it, beside the node binary.
 */
export function npmInvocation(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  execPath: string = process.execPath,
  exists: (path: string) => boolean = existsSync
): { file: string; args: string[] } {
  const path = platform === 'win32' ? win32 : posix
  const fromNpm = env.npm_execpath
  // Under pnpm or yarn, npm_execpath names their CLI, which takes other arguments.
  if (fromNpm && /^npm-cli\.c?js$/.test(path.basename(fromNpm))) {
    return { file: execPath, args: [fromNpm] }
  }
  const nodeDir = path.dirname(execPath)
  const besideNode =
    platform === 'win32'
      ? path.join(nodeDir, 'node_modules', 'npm', 'bin', 'npm-cli.js')
      : path.join(nodeDir, '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js')
  if (exists(besideNode)) return { file: execPath, args: [besideNode] }
  if (platform !== 'win32') return { file: 'npm', args: [] }
  throw new Error(
    `Cannot find npm's CLI to install Node 24 (npm_execpath is not set and ${besideNode} does not exist). ` +
      'Run the tests through npm (npm test), or set RUNNER_NODE to a Node 24 binary.'
  )
}

/** npm install of one package into a prefix of its own, outside the project's lockfile. */
export function installInto(prefix: string, spec: string): void {
  mkdirSync(prefix, { recursive: true })
  const npm = npmInvocation()
  execFileSync(
    npm.file,
    [
      ...npm.args,
      'install',
      '--prefix',
      prefix,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      spec
    ],
    { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] }
  )
}

/** Path of a Node 24 binary: `RUNNER_NODE` when set, else the npm package, installed if missing. */
export function ensureNode24(): string {
  const override = process.env.RUNNER_NODE
  if (override) return override
  // Version checked once per process (a `node --version` per step adds up); the file is checked
  // every time, because `npm ci` empties node_modules.
  if ((checked && existsSync(checked)) || version(binary)?.startsWith('v24.')) {
    return (checked = binary)
  }
  return withLock(() => {
    if (!version(binary)?.startsWith('v24.')) {
      process.stderr.write(`Installing ${packageName}@24 (the runner's Node) with npm …\n`)
      installInto(node24Prefix, `${packageName}@24`)
    }
    const found = version(binary)
    if (!found?.startsWith('v24.')) throw new Error(`${binary} is not Node 24 (got ${found})`)
    return (checked = binary)
  })
}
