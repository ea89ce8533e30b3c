/**
 * The npm package as another CI system runs it. `npm pack` of this repository (the committed
 * dist/), installed offline into an empty folder as a job would; then `tunnel-credentials
 * provision` (credential `cicd`, no `expose`), run as `node <the bin link, resolved>`, against
 * bench/floor-provision-env-file.cjs, in ABBA pairs as the start-up section does. Both get
 * the same SVC_* variables and the benchmark's certificate as NODE_EXTRA_CA_CERTS, both do TLS
 * against the same https service, both are CommonJS files, and both must leave tunnel.env with
 * the four variables, mode 0600, and exit 0 on every run. Also the packed tarball's size.
 * Targets: at most 1.35x the floor on the runner's Node (the action's start-up target), and a
 * tarball of at most 1,000,000 bytes (1 MB, decimal, as the dist/ target counts KB).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { installPackedCli, packTarball } from '../__tests__/helpers/packed-cli.js'
import { repoRoot } from '../scripts/runner.js'
import { change, pass } from './numbers.js'
import type { BenchContext, BenchSection, Runtime } from './section.js'
import { alternate, reportPairs, type Pairs } from './startup.js'

const TARGETS = { cliRatio: 1.35, tarballBytes: 1_000_000 }
const floorEnvFile = join(repoRoot, 'bench', 'floor-provision-env-file.cjs')

interface CliRun {
  ms: number
  exitCode: number | null
  output: string
  /** tunnel.env as the process left it, or undefined when there is none. */
  envFile?: { text: string; mode: number }
}

/**
 * One `node <script> [args]` in a fresh job folder, its output piped as a CI system's job log
 * is; the clock runs from spawn to exit.
 */
async function timeCli(
  node: string,
  script: string,
  args: string[],
  env: Record<string, string>
): Promise<CliRun> {
  const work = mkdtempSync(join(tmpdir(), 'bench-cli-'))
  try {
    let output = ''
    const started = performance.now()
    const child = spawn(node, [script, ...args], {
      cwd: work,
      env: { ...env, HOME: work },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    for (const stream of [child.stdout, child.stderr]) {
      stream.setEncoding('utf8').on('data', (text: string) => (output += text))
    }
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject)
      child.on('exit', code => resolve(code))
    })
    const ms = performance.now() - started
    const path = join(work, 'tunnel.env')
    let envFile: CliRun['envFile']
    try {
      envFile = { text: readFileSync(path, 'utf8'), mode: statSync(path).mode & 0o777 }
    } catch {
      envFile = undefined
    }
    return { ms, exitCode, output, envFile }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/** What the CLI must leave: exit 0, and tunnel.env (0600) with the four quoted variables. */
export function expectEnvFile(run: CliRun, what: string): void {
  const names = run.envFile?.text.match(/^SVC_TUNNEL_(TOKEN|USER|HOST|PORT)='[^']+'$/gm) ?? []
  if (run.exitCode !== 0 || names.length !== 4 || run.envFile?.mode !== 0o600) {
    throw new Error(
      `bench: ${what} did not provision (exit ${run.exitCode}, ${names.length} variables, mode ${run.envFile?.mode.toString(8)}):\n${run.output}`
    )
  }
}

function cliPairs(context: BenchContext, runtime: Runtime, bin: string): Promise<Pairs> {
  const env = () => ({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    NODE_EXTRA_CA_CERTS: context.caFile,
    SVC_API_KEY: context.nextApiKey(),
    SVC_BASE_URL: context.service.baseUrl,
    SVC_PROJECT: context.service.seed.project,
    SVC_CREDENTIAL: 'cicd'
  })
  return alternate(
    context,
    runtime.label,
    async () => {
      const cli = await timeCli(runtime.path, bin, ['provision'], env())
      expectEnvFile(cli, 'tunnel-credentials provision')
      return cli.ms
    },
    async () => {
      const floor = await timeCli(runtime.path, floorEnvFile, [], env())
      expectEnvFile(floor, 'floor-provision-env-file.cjs')
      return floor.ms
    }
  )
}

export const cliSection: BenchSection = {
  name: 'the npm package: provision against the https floor, tarball size',
  async run(context) {
    const tarball = packTarball(mkdtempSync(join(tmpdir(), 'packed-cli-')))
    const tarballBytes = statSync(tarball).size
    const installed = installPackedCli()
    const rows: Pairs[] = []
    try {
      const bin = realpathSync(installed.bin)
      for (const runtime of context.runtimes) rows.push(await cliPairs(context, runtime, bin))
    } finally {
      rmSync(installed.dir, { recursive: true, force: true })
      rmSync(dirname(tarball), { recursive: true, force: true })
    }
    const ratioOk = rows[0].ratio <= TARGETS.cliRatio
    const sizeOk = tarballBytes <= TARGETS.tarballBytes
    return {
      results: { cli: { tarballBytes, provision: rows } },
      targets: {
        cliRatio: {
          figure: `${rows[0].ratio.toFixed(3)}x`,
          limit: `<= ${TARGETS.cliRatio}x`,
          pass: ratioOk
        },
        packageTarball: {
          figure: `${(tarballBytes / 1000).toFixed(1)} KB`,
          limit: `<= ${TARGETS.tarballBytes / 1000} KB`,
          pass: sizeOk
        }
      },
      report: [
        ...reportPairs(
          'tunnel-credentials provision (installed package) vs floor-provision-env-file.cjs (medians)',
          rows,
          TARGETS.cliRatio
        ),
        '',
        `  packed tarball  ${tarballBytes} bytes  target <= ${TARGETS.tarballBytes} bytes (1 MB, not 1 MiB)  ${pass(sizeOk)}`
      ],
      compare(previous) {
        const before = previous.cli as { tarballBytes?: number; provision?: Pairs[] } | undefined
        return [
          ...rows.flatMap((row, i) => {
            const old = before?.provision?.[i]
            return [
              ...change(`cli provision, ${row.node}`, old?.stepMedianMs, row.stepMedianMs, 'ms'),
              ...change(`cli floor, ${row.node}`, old?.floorMedianMs, row.floorMedianMs, 'ms'),
              ...change(`cli/floor, ${row.node}`, old?.ratio, row.ratio, 'x')
            ]
          }),
          ...change(
            'package tarball',
            before?.tarballBytes === undefined ? undefined : before.tarballBytes / 1000,
            tarballBytes / 1000,
            'KB'
          )
        ]
      }
    }
  }
}
