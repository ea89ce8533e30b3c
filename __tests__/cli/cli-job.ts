/**
 * What the packed-package suites share: the package installed offline once per file, a local
 * app, a fresh job folder per test, the variables a CI system would give, and the checks made on
 * what a user sees.
 */
import { execFileSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getThroughFront, startLocalApp } from '../../scripts/openssh.js'
import type { RunningService } from '../../service/server.js'
import { lookUpProcess } from '../../src/core/tunnel/saved/process-identity.js'
import { installPackedCli, runCli, type CliRun } from '../helpers/packed-cli.js'

export interface CliJob {
  /** Runs the installed CLI with `node` in the job's folder. */
  cli(
    args: string[],
    env?: Record<string, string>,
    node?: string,
    watch?: (child: ChildProcess, stdoutSoFar: string) => void
  ): Promise<CliRun>
  /** The job's variables for the service, plus `extra`; no GITHUB_* and no runner. */
  env(extra?: Record<string, string>): Record<string, string>
  work(): string
  app(): Awaited<ReturnType<typeof startLocalApp>>
  exposeFlags(): string[]
}

export function useCliJob(service: () => RunningService): CliJob {
  let installed: { dir: string; bin: string } | undefined
  let app: Awaited<ReturnType<typeof startLocalApp>> | undefined
  let work = ''
  beforeAll(async () => {
    installed = installPackedCli()
    app = await startLocalApp('answer from your local app')
  }, 120_000)
  afterAll(async () => {
    await app?.close()
    if (installed) rmSync(installed.dir, { recursive: true, force: true })
  })
  beforeEach(() => (work = mkdtempSync(join(tmpdir(), 'cli-job-'))))
  afterEach(() => rmSync(work, { recursive: true, force: true }))

  const env = (extra: Record<string, string> = {}) => ({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: work,
    SVC_API_KEY: service().seed.provisionKey,
    SVC_BASE_URL: service().baseUrl,
    SVC_PROJECT: service().seed.project,
    SVC_TIMEOUT_SECONDS: '5',
    ...extra
  })
  return {
    cli: (args, jobEnv = env(), node = process.execPath, watch) =>
      runCli(node, installed!.bin, args, { env: jobEnv, cwd: work, ...(watch && { watch }) }),
    env,
    work: () => work,
    app: () => app!,
    exposeFlags: () => [
      '--expose',
      `app=${app!.port}`,
      '--url-template',
      `http://{name}-{user}.localhost:${service().tunnel!.frontPort}`
    ]
  }
}

/** Reads the env file the way `set -a; . ./tunnel.env` does in a job: with sh itself. */
export function loadEnvFile(path: string): Record<string, string> {
  const out = execFileSync('sh', ['-c', 'set -a; . "$1"; set +a; env -0', 'sh', path], {
    env: {},
    encoding: 'utf8'
  })
  return Object.fromEntries(
    out
      .split('\0')
      .filter(line => line.startsWith('SVC_'))
      .map(line => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)])
  )
}

export function expectNoSecretPrinted(run: CliRun, secrets: string[]): void {
  for (const secret of secrets.filter(Boolean)) {
    expect(run.stdout).not.toContain(secret)
    expect(run.stderr).not.toContain(secret)
  }
}

/** As a browser reaches a tunnel URL: the front routes by host name (*.localhost is loopback). */
export async function fetchUrl(
  service: RunningService,
  url: string
): Promise<{ status: number; text: string }> {
  const { status, body } = await getThroughFront(service.tunnel!.frontPort, new URL(url).hostname)
  return { status, text: body }
}

export function stillRunning(pid: number): boolean {
  return lookUpProcess(pid).state === 'running'
}

/** The tunnel process's pid, from the line provision prints. */
export function tunnelPid(run: CliRun): number {
  return Number(/\(process (\d+),/.exec(run.stdout)![1])
}
