/**
 * The npm package as users get it: `npm pack` of the repository (the committed dist/), installed
 * into an empty folder with the network off. Every tarball is packed into a folder its user
 * removes, so that no run leaves one in the system's temp folder.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { npmInvocation, repoRoot } from '../../scripts/node24.js'

/** Packs the package into `destination` (an existing folder) and returns the tarball's path. */
export function packTarball(destination: string): string {
  const npm = npmInvocation()
  execFileSync(
    npm.file,
    [...npm.args, 'pack', '--pack-destination', destination, '--ignore-scripts', '--silent'],
    { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] }
  )
  const [name] = readdirSync(destination).filter(file => file.endsWith('.tgz'))
  return join(destination, name)
}

/**
 * The tarball for the tests of the calling file or describe block: packed before them, and
 * removed, with its folder, after them.
 */
export function usePackedTarball(): () => string {
  let tarball: string | undefined
  beforeAll(() => {
    tarball = packTarball(mkdtempSync(join(tmpdir(), 'packed-cli-')))
  }, 120_000)
  afterAll(() => {
    if (tarball !== undefined) rmSync(dirname(tarball), { recursive: true, force: true })
  })
  return () => {
    if (tarball === undefined) throw new Error('the packed tarball is made in beforeAll')
    return tarball
  }
}

/**
 * Installs the package into a fresh folder, offline and with an empty npm cache: the package
 * has no dependency to fetch. The tarball is packed inside that folder, so removing the folder
 * removes everything. Returns the folder and its `tunnel-credentials` link.
 */
export function installPackedCli(): { dir: string; bin: string } {
  const dir = mkdtempSync(join(tmpdir(), 'installed-cli-'))
  const packed = join(dir, '.packed')
  mkdirSync(packed)
  const tarball = packTarball(packed)
  const npm = npmInvocation()
  execFileSync(
    npm.file,
    [
      ...npm.args,
      'install',
      '--offline',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--no-package-lock',
      '--cache',
      join(dir, '.npm-cache'),
      tarball
    ],
    { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] }
  )
  return { dir, bin: join(dir, 'node_modules', '.bin', 'tunnel-credentials') }
}

export interface CliRun {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** Runs the installed CLI with `node` (a chosen Node binary) and the given environment only. */
export function runCli(
  node: string,
  bin: string,
  args: string[],
  options: {
    env: Record<string, string>
    cwd: string
    timeoutMs?: number
    /** Called with the process and each chunk of stdout, e.g. to signal it at a given line. */
    watch?: (child: ChildProcess, stdoutSoFar: string) => void
  }
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [bin, ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk
      options.watch?.(child, stdout)
    })
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(
        new Error(
          `tunnel-credentials ${args[0]} did not end within ${options.timeoutMs ?? 30_000} ms`
        )
      )
    }, options.timeoutMs ?? 30_000)
    child.on('error', reject)
    // 'close', not 'exit': the streams must be complete, and a tunnel process that held them
    // open would keep this from resolving, which the timeout then reports.
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
  })
}
