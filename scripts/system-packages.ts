/**
 * The system packages the tests drive, beside Node: curl and jq (the shell recipes), the OpenSSH
 * client and server (tunnels, pinned host keys), rsync (gitlab-ci-local copies files with it), and
 * Chromium with its WebDriver (the gate in a real browser), and Caddy (the stand-in's edge proxy,
 * as the real tunnel server's reference deployment runs it).
 * `npm test` checks them first (Jest's globalSetup) and names what is missing in one line, rather
 * than letting tests fail far away; `.ci/run` installs them with apt-get, or fails saying which.
 *
 *   npx tsx scripts/system-packages.ts            exit 1 naming the missing packages
 *   npx tsx scripts/system-packages.ts --install  apt-get install them first
 */
import { spawnSync } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Debian's package name, and the program whose presence shows it is installed. */
export const SYSTEM_PACKAGES: { name: string; program: string }[] = [
  { name: 'curl', program: 'curl' },
  { name: 'jq', program: 'jq' },
  { name: 'openssh-client', program: 'ssh' },
  // The tests start OpenSSH's server by its absolute path, as Debian installs it.
  { name: 'openssh-server', program: '/usr/sbin/sshd' },
  { name: 'rsync', program: 'rsync' },
  // The gate's browser tests drive Debian's Chromium (Playwright, and Selenium through its
  // driver) by these absolute paths, so neither library downloads a browser or a driver.
  { name: 'chromium', program: '/usr/bin/chromium' },
  { name: 'chromium-driver', program: '/usr/bin/chromedriver' },
  // The stand-in's edge mode (service/edge/caddy.ts) runs Debian's Caddy by this path.
  { name: 'caddy', program: '/usr/bin/caddy' }
]

const isExecutable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** Whether `program` (a name looked up on `path`, or an absolute path) can be run. */
export function canRun(program: string, path = process.env.PATH ?? ''): boolean {
  if (program.startsWith('/')) return isExecutable(program)
  return path
    .split(delimiter)
    .filter(Boolean)
    .some(dir => isExecutable(join(dir, program)))
}

/** The packages whose program cannot be run. */
export function missingPackages(present: (program: string) => boolean = canRun): string[] {
  return SYSTEM_PACKAGES.filter(({ program }) => !present(program)).map(({ name }) => name)
}

export const installCommand = (names: string[]): string =>
  `apt-get update && apt-get install -y ${names.join(' ')}`

/** One line naming what is missing and how to install it, or undefined when all is there. */
export function missingMessage(names: string[]): string | undefined {
  if (names.length === 0) return undefined
  return `The tests need these system packages, which are missing: ${names.join(', ')}. Install them (on Debian or Ubuntu: ${installCommand(names)}), then run the tests again.`
}

/**
 * Installs the missing packages with apt-get; any failure (no apt-get, a lock held by another
 * package run, no network) ends in one error line naming what is still missing.
 */
export function installMissing(
  run: (args: string[]) => number | null = args =>
    spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'] }).status,
  present: (program: string) => boolean = canRun
): { ok: true } | { ok: false; message: string } {
  const missing = missingPackages(present)
  if (missing.length === 0) return { ok: true }
  const failed = (what: string) => ({
    ok: false as const,
    message: `Could not install ${missing.join(', ')}: ${what}. Install them yourself (${installCommand(missing)}), then run again.`
  })
  const update = run(['update', '-qq'])
  if (update !== 0) return failed(`apt-get update failed (exit ${update ?? 'by a signal'})`)
  const install = run(['install', '-y', '-qq', ...missing])
  if (install !== 0) return failed(`apt-get install failed (exit ${install ?? 'by a signal'})`)
  const still = missingPackages(present)
  if (still.length > 0) return failed(`apt-get ran, but ${still.join(', ')} is still missing`)
  return { ok: true }
}

/** Jest's globalSetup: stops the run before any test, with one line, when a package is missing. */
export default function checkSystemPackages(): void {
  const message = missingMessage(missingPackages())
  if (message === undefined) return
  const error = new Error(message)
  // Jest prints the stack after its own line: the message alone is the whole story.
  error.stack = message
  throw error
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--install')) {
    const result = installMissing()
    if (!result.ok) {
      console.error(result.message)
      process.exit(1)
    }
  } else {
    const message = missingMessage(missingPackages())
    if (message !== undefined) {
      console.error(message)
      process.exit(1)
    }
  }
}
