/**
 * The npm package as users get it: `npm pack` of the repository (the committed dist/), installed
 * into an empty folder with the network off. Made once per Jest worker.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { npmInvocation, repoRoot } from '../../scripts/node24.js'

let tarball: string | undefined

/** The absolute path of the package's tarball, packed once per worker. */
export function packedTarball(): string {
  if (tarball !== undefined) return tarball
  const destination = mkdtempSync(join(tmpdir(), 'packed-cli-'))
  const npm = npmInvocation()
  execFileSync(
    npm.file,
    [...npm.args, 'pack', '--pack-destination', destination, '--ignore-scripts', '--silent'],
    { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] }
  )
  const [name] = readdirSync(destination).filter(file => file.endsWith('.tgz'))
  tarball = join(destination, name)
  return tarball
}

/**
 * Installs the tarball into a fresh folder, offline and with an empty npm cache: the package
 * has no dependency to fetch. Returns the folder and its `tunnel-credentials` link.
 */
export function installPackedCli(): { dir: string; bin: string } {
  const dir = mkdtempSync(join(tmpdir(), 'installed-cli-'))
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
      packedTarball()
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
