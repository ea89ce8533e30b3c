/**
 * Runs GitLab pipelines on this machine with gitlab-ci-local (pinned, installed from the npm
 * registry into node_modules/.cache on first use, run on Node 24 as it requires) and the shell
 * executor: the jobs run with this machine's bash and Node, in a throwaway git project. The
 * package a job installs is the packed tarball of this repository, given by a file:// URL and its
 * real SHA-256 (packageInputs), so no registry is reached.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync
} from 'node:fs'
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { stringify } from 'yaml'
import { ensureNode24, installInto, repoRoot, withLock } from '../../scripts/node24.js'
import { findSecretLeaks } from '../../scripts/runner.js'

export const GITLAB_CI_LOCAL = '4.75.1'
const prefix = join(repoRoot, 'node_modules', '.cache', 'gitlab-ci-local')
const entry = join(prefix, 'node_modules', 'gitlab-ci-local', 'dist', 'index.js')

const installedVersion = (): string | undefined => {
  try {
    const manifest = join(dirname(dirname(entry)), 'package.json')
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
  } catch {
    return undefined
  }
}

/** The gitlab-ci-local entry script, installed (pinned) when missing or of another version. */
export function ensureGitlabCiLocal(): string {
  if (installedVersion() === GITLAB_CI_LOCAL) return entry
  return withLock(() => {
    if (installedVersion() !== GITLAB_CI_LOCAL) {
      installInto(prefix, `gitlab-ci-local@${GITLAB_CI_LOCAL}`)
    }
    return entry
  }, 'gitlab-ci-local')
}

/**
 * A git project as gitlab-ci-local expects one (scripts, `#!` first, executable): a commit, and an origin on a GitLab host (never
 * contacted) that gives CI_SERVER_FQDN and CI_PROJECT_PATH, so that a component named
 * `$CI_SERVER_FQDN/$CI_PROJECT_PATH/NAME@$CI_COMMIT_SHA` is read from the project's templates/.
 */
export function gitProject(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gitlab-project-'))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text, { mode: text.startsWith('#!') ? 0o755 : 0o644 })
  }
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
  git('init', '-q', '-b', 'main')
  git('remote', 'add', 'origin', 'https://gitlab.example.com/acme/web-shop.git')
  git('add', '-A')
  git('-c', 'user.name=CI', '-c', 'user.email=ci@example.com', 'commit', '-qm', 'pipeline')
  git('update-ref', 'refs/remotes/origin/main', 'HEAD')
  git('symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main')
  return dir
}

export interface PipelineRun {
  code: number | null
  /** gitlab-ci-local's stdout and stderr, as a terminal shows them (no colours). */
  output: string
  /** Every file gitlab-ci-local wrote in its state folder (job logs, the expanded YAML, …). */
  stateFiles: string
}

/**
 * Runs the project's pipeline. `projectVariables` stand for the CI/CD variables of the project's
 * settings (the masked SVC_API_KEY): gitlab-ci-local reads them from a file outside the project,
 * so they are on no command line (a value naming an existing file becomes a file variable, as in
 * GitLab: paths go in `env`). `npmCache` is the npx cache the jobs install into, offline.
 */
export function runPipeline(
  dir: string,
  options: {
    projectVariables: Record<string, string>
    npmCache: string
    /** More environment for gitlab-ci-local, which the shell executor hands to the jobs. */
    env?: Record<string, string>
    /**
     * Variables given when the pipeline starts (`--variable`), as a user who may run pipelines
     * gives them: in GitLab they win over the job's own variables and the project's settings.
     */
    pipelineVariables?: Record<string, string>
    /**
     * How many jobs run at once (`--concurrency`). The shell executor runs every job in the
     * project's own folder, so jobs that write the same files there run one at a time.
     * (`--shell-isolation` would give each its own copy, but copies it afresh before
     * after_script, which then finds none of the files the script wrote.)
     */
    concurrency?: number
    timeoutMs?: number
  }
): Promise<PipelineRun> {
  // Its own home too, so that no ~/.gitlab-ci-local/variables.yml of this machine's user applies.
  const home = mkdtempSync(join(tmpdir(), 'gitlab-ci-local-home-'))
  const variablesFile = join(home, 'project-variables.yml')
  writeFileSync(variablesFile, stringify(options.projectVariables), { mode: 0o600 })
  // The schema check (a second per run) is left to the --preview tests of the examples.
  const args = [ensureGitlabCiLocal(), '--force-shell-executor', '--no-color']
  args.push('--no-json-schema-validation')
  if (options.concurrency !== undefined) args.push('--concurrency', String(options.concurrency))
  args.push('--variables-file', variablesFile, '--home', home)
  for (const [name, value] of Object.entries(options.pipelineVariables ?? {})) {
    args.push('--variable', `${name}=${value}`)
  }
  return new Promise((resolve, reject) => {
    const child = spawn(ensureNode24(), args, {
      cwd: dir,
      env: { ...process.env, ...options.env, ...offlineNpmEnv(options.npmCache), FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let output = ''
    child.stdout.on('data', chunk => (output += chunk))
    child.stderr.on('data', chunk => (output += chunk))
    child.on('error', reject)
    const limit = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000)
    child.on('close', code => {
      clearTimeout(limit)
      rmSync(home, { recursive: true, force: true })
      resolve({ code, output, stateFiles: readAll(join(dir, '.gitlab-ci-local')) })
    })
  })
}

/** The component's package inputs for a tarball on this machine: its file:// URL and its SHA-256. */
export function packageInputs(tarball: string): {
  'package-url': string
  'package-sha256': string
} {
  return {
    'package-url': `file://${tarball}`,
    'package-sha256': createHash('sha256').update(readFileSync(tarball)).digest('hex')
  }
}

/** The pipeline as gitlab-ci-local expands it (`--preview`: includes, inputs, merged jobs). */
export function previewPipeline(dir: string): {
  code: number | null
  stdout: string
  stderr: string
} {
  const run = spawnSync(ensureNode24(), [ensureGitlabCiLocal(), '--preview', '--no-color'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0' },
    timeout: 60_000
  })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}

function readAll(folder: string): string {
  if (!existsSync(folder)) return ''
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter(entry => entry.isFile())
    .map(entry => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
    .join('\n')
}

/** Problems found with the e2e leak check, applied to every line gitlab-ci-local printed or wrote. */
export function leaksIn(run: PipelineRun, secrets: string[]): string[] {
  const lines = `${run.output}\n${run.stateFiles}`
    .split('\n')
    .map(text => ({ stream: 'stdout' as const, text }))
  return findSecretLeaks({ lines, summary: '', state: {} }, { secrets })
}

/** Running, as /proc says: a process that exited and waits to be reaped (by pid 1, late) is not. */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2))
  } catch {
    return false
  }
}

/** Pids of the running processes whose command line holds `text`. */
export function processesWith(text: string): number[] {
  return readdirSync('/proc')
    .filter(name => /^\d+$/.test(name) && Number(name) !== process.pid)
    .filter(pid => {
      try {
        return isRunning(Number(pid)) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text)
      } catch {
        return false
      }
    })
    .map(Number)
}

/**
 * Environment for an `npx --package <tarball>` that never reaches a registry: npm answers from
 * `cache` only (the package has no runtime dependencies, so the tarball is all it needs), and
 * asks nothing (audit, fund, update notice, the install prompt).
 */
function offlineNpmEnv(cache: string): Record<string, string> {
  return {
    npm_config_offline: 'true',
    npm_config_cache: cache,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_yes: 'true'
  }
}
