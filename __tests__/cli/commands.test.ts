/**
 * The three commands in this process, through main() as bin.ts calls it, against the local
 * credential service: what a job sees (exit codes, lines, files) on the paths the packed-package
 * suites do not take. Tunnels are left to those suites, which run the real tunnel process.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync
} from 'node:fs'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { main } from '../../src/cli/index.js'
import { directoryId } from '../../src/core/owned-dir.js'
import { lookUpProcess, startTimeOf } from '../../src/core/tunnel/saved/process-identity.js'
import { ACTION_VERSION } from '../../src/core/version.js'
import { parseExpose } from '../../src/core/settings/expose.js'
import { startCredentialService, type RunningService } from '../../service/server.js'
import { ensureNode24 } from '../../scripts/node24.js'

let service: RunningService
let work: string
beforeAll(async () => (service = await startCredentialService()))
afterAll(() => service.close())
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'cli-commands-'))
  service.clearRequests()
})
afterEach(() => {
  chmodSync(work, 0o700)
  rmSync(work, { recursive: true, force: true })
})

interface Ran {
  code: number
  stdout: string[]
  stderr: string[]
}

async function cli(args: string[], extra: Record<string, string | undefined> = {}): Promise<Ran> {
  const stdout: string[] = []
  const stderr: string[] = []
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    SVC_API_KEY: service.seed.provisionKey,
    SVC_BASE_URL: service.baseUrl,
    SVC_PROJECT: service.seed.project,
    SVC_VARIABLES_FILE: join(work, 'tunnel.env'),
    ...extra
  }
  const code = await main(args, env, {
    stdout: line => stdout.push(line),
    stderr: line => stderr.push(line)
  })
  return { code, stdout, stderr }
}

const stateFile = () => join(work, '.tunnel-credentials.json')
const statusOf = (user: string) => service.tokens().find(t => t.tunnel_user === user)?.status
const userIn = (ran: Ran) => /Provisioned tunnel user (\w+)/.exec(ran.stdout.join('\n'))![1]

describe('help, version and usage', () => {
  it('prints the help and the version, exit 0', async () => {
    const help = await cli(['--help'])
    expect(help.code).toBe(0)
    expect(help.stdout.join('\n')).toMatch(/^Usage:\n {2}tunnel-credentials provision \[options\]/)
    expect((await cli(['--version'])).stdout).toEqual([`tunnel-credentials ${ACTION_VERSION}`])
  })

  it("--help's example of --expose is one the tool accepts", async () => {
    const help = (await cli(['--help'])).stdout.join('\n')
    const example = /--expose ("[^"]*"|\S+)/.exec(help)![1].replace(/^"|"$/g, '')
    expect(parseExpose(example, name => `--${name}`).length).toBeGreaterThan(0)
  })

  it('refuses the old --env-file even after Node read it, on Node 20 and 24: exit 2, nothing sent', () => {
    // Node itself loads the file --env-file names, wherever it stands before "--": the tool's own
    // code then still refuses the spelling, names the new one, and sends nothing.
    const planted = join(work, 'planted.env')
    writeFileSync(planted, 'SOMETHING=else\n')
    const bin = join(process.cwd(), 'src', 'cli', 'bin.ts')
    for (const node of [process.execPath, ensureNode24()]) {
      for (const args of [
        ['provision', '--env-file', planted],
        ['revoke', `--env-file=${planted}`]
      ]) {
        const ran = spawnSync(node, ['--import', 'tsx', bin, ...args], {
          encoding: 'utf8',
          env: {
            PATH: process.env.PATH,
            SVC_API_KEY: service.seed.provisionKey,
            SVC_BASE_URL: service.baseUrl,
            SVC_PROJECT: service.seed.project,
            SVC_STATE_FILE: stateFile()
          }
        })
        expect({ node, args, status: ran.status }).toEqual({ node, args, status: 2 })
        expect(ran.stderr).toContain('--variables-file')
      }
    }
    expect(service.requests()).toEqual([])
    expect(readFileSync(planted, 'utf8')).toBe('SOMETHING=else\n')
  })

  it('a usage error: exit 2, one line, nothing sent', async () => {
    const ran = await cli(['provision', '--projekt', 'x'])
    expect(ran).toEqual({
      code: 2,
      stdout: [],
      stderr: ['Usage error: "--projekt" is not an option. See tunnel-credentials --help.']
    })
    expect(service.requests()).toEqual([])
  })
})

describe('provision', () => {
  it('writes the env file and the outputs file, mode 0600; the summary names no secret', async () => {
    const ran = await cli(['provision', '--outputs-file', join(work, 'outputs.json')])
    expect(ran.code).toBe(0)
    expect(ran.stderr).toEqual([])
    const outputs = JSON.parse(readFileSync(join(work, 'outputs.json'), 'utf8'))
    expect(outputs).toMatchObject({ credential: 'cicd', 'tunnel-user': userIn(ran) })
    expect(statSync(join(work, 'outputs.json')).mode & 0o777).toBe(0o600)
    expect(ran.stdout.join('\n')).not.toContain(outputs.token)
    expect(ran.stdout.at(-1)).toBe(
      `Wrote 4 variables to ${join(work, 'tunnel.env')}; load them with: set -a; . ${join(work, 'tunnel.env')}; set +a`
    )
  })

  it('refuses to run over a state file an earlier provision left, and sends nothing', async () => {
    expect((await cli(['provision'])).code).toBe(0)
    service.clearRequests()
    const again = await cli(['provision'])
    expect(again.code).toBe(1)
    expect(again.stderr).toEqual([
      `Error: ${stateFile()} (--state-file) records a credential or tunnel that was never revoked. Run tunnel-credentials revoke first, with the same options.`
    ])
    expect(service.requests()).toEqual([])
  })

  it('refuses a state file that is not its own, and leaves it as it was', async () => {
    writeFileSync(stateFile(), '{"somebody": "else"}')
    const ran = await cli(['provision'], { SVC_STATE_FILE: stateFile() })
    expect(ran.code).toBe(1)
    expect(ran.stderr[0]).toBe(
      `Error: ${stateFile()} (SVC_STATE_FILE) exists and is not a tunnel-credentials state file. Move it away, or choose another SVC_STATE_FILE.`
    )
    expect(readFileSync(stateFile(), 'utf8')).toBe('{"somebody": "else"}')
  })

  it('refuses a link at the variables file, even to a file it wrote: exit 1, nothing sent or written through', async () => {
    const own = join(work, 'own.env')
    expect((await cli(['provision'], { SVC_VARIABLES_FILE: own })).code).toBe(0)
    expect((await cli(['revoke'], { SVC_VARIABLES_FILE: own })).code).toBe(0)
    writeFileSync(own, '# tunnel-credentials\nKEEP=1\n')
    const link = join(work, 'tunnel.env')
    symlinkSync(own, link)
    service.clearRequests()
    const ran = await cli(['provision'])
    expect(ran.code).toBe(1)
    expect(ran.stderr).toEqual([
      `Error: ${link} (SVC_VARIABLES_FILE) exists and was not written by tunnel-credentials, which never replaces such a file. Move it away, or choose another SVC_VARIABLES_FILE.`
    ])
    expect(service.requests()).toEqual([])
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(readFileSync(own, 'utf8')).toBe('# tunnel-credentials\nKEEP=1\n')
  })

  it("never replaces the project's own .env: exit 1, no credential, and revoke leaves it too", async () => {
    const projectEnv = join(work, '.env')
    const mine = 'DATABASE_URL=postgres://localhost/dev\nFEATURE=1\n'
    writeFileSync(projectEnv, mine)
    for (const variable of ['SVC_VARIABLES_FILE', 'SVC_ENV_FILE']) {
      const env = { SVC_VARIABLES_FILE: undefined, [variable]: projectEnv }
      const ran = await cli(['provision'], env)
      expect(ran.code).toBe(1)
      expect(ran.stderr.join('\n')).toContain(projectEnv)
      expect(service.requests()).toEqual([])
      expect(existsSync(stateFile())).toBe(false)
      expect((await cli(['revoke'], env)).code).toBe(0)
      expect(readFileSync(projectEnv, 'utf8')).toBe(mine)
    }
  })

  it('never replaces a file at the outputs path that is not its own: exit 1, nothing sent', async () => {
    const manifest = join(work, 'package.json')
    const text = '{"name": "app", "scripts": {"test": "jest"}}\n'
    writeFileSync(manifest, text)
    const ran = await cli(['provision', '--outputs-file', manifest])
    expect(ran.code).toBe(1)
    expect(ran.stderr.join('\n')).toContain(manifest)
    expect(service.requests()).toEqual([])
    expect(readFileSync(manifest, 'utf8')).toBe(text)
    expect(existsSync(join(work, 'tunnel.env'))).toBe(false)
  })

  it('never replaces a file at the request log path that is not its own HAR: exit 1, nothing sent', async () => {
    const notes = join(work, 'notes.har')
    const text = '{"log": {"version": "1.2", "creator": {"name": "DevTools"}}}\n'
    writeFileSync(notes, text)
    const ran = await cli(['provision', '--request-log', notes])
    expect(ran.code).toBe(1)
    expect(ran.stderr.join('\n')).toContain(notes)
    expect(service.requests()).toEqual([])
    expect(readFileSync(notes, 'utf8')).toBe(text)
    expect(existsSync(join(work, 'tunnel.env'))).toBe(false)
    // One the tool wrote before is its own, and provision goes ahead.
    writeFileSync(notes, '{"log":{"version":"1.2","creator":{"name":"tunnel-credentials"}}}\n')
    expect((await cli(['provision', '--request-log', notes])).code).toBe(0)
    expect((await cli(['revoke'])).code).toBe(0)
  })

  it('never replaces a large file at the state path: provision and run exit 1, nothing sent', async () => {
    const big = `${'x'.repeat(70 * 1024)}\n`
    writeFileSync(stateFile(), big)
    const marker = join(work, 'ran')
    for (const args of [['provision'], ['run', '--', 'touch', marker]]) {
      const ran = await cli(args)
      expect(ran.code).toBe(1)
      expect(ran.stderr.join('\n')).toContain(stateFile())
    }
    expect(service.requests()).toEqual([])
    expect(existsSync(marker)).toBe(false)
    expect(readFileSync(stateFile(), 'utf8')).toBe(big)
  })

  it('of two provisions in one folder at once, exactly one wins; one token is issued', async () => {
    const active = () => service.tokens().filter(token => token.status === 'active').length
    const before = active()
    const [first, second] = await Promise.all([cli(['provision']), cli(['provision'])])
    const codes = [first.code, second.code].sort()
    expect(codes).toEqual([0, 1])
    const loser = first.code === 1 ? first : second
    expect(loser.stderr.join('\n')).toContain(stateFile())
    expect(active()).toBe(before + 1)
    expect((await cli(['revoke'])).code).toBe(0)
    expect(active()).toBe(before)
  })

  it('of a provision and a run in one folder at once, exactly one gets the state file', async () => {
    const marker = join(work, 'ran')
    const [provisioned, ran] = await Promise.all([
      cli(['provision']),
      cli(['run', '--', 'touch', marker])
    ])
    expect([provisioned.code, ran.code].sort()).toEqual([0, 1])
    expect(existsSync(marker)).toBe(ran.code === 0)
    expect(service.requests().filter(r => r.path.endsWith('credential-provision'))).toHaveLength(1)
  })

  it('revokes at once a credential whose env file cannot be written', async () => {
    // The env file's folder exists but cannot be written to; the state file lives elsewhere.
    const locked = join(work, 'locked')
    mkdirSync(locked)
    chmodSync(locked, 0o500)
    const ran = await cli(['provision', '--state-file', join(work, 'state.json')], {
      SVC_VARIABLES_FILE: join(locked, 'tunnel.env')
    })
    chmodSync(locked, 0o700)
    if (process.getuid?.() === 0) {
      // root writes anyway: nothing to show here.
      expect(ran.code).toBe(0)
      return
    }
    expect(ran.code).toBe(1)
    expect(ran.stderr).toEqual([expect.stringMatching(/^Error: .*EACCES/)])
    expect(statusOf(userIn(ran))).toBe('revoked')
    // Revoked once, by the step itself: the command does not repeat it.
    expect(service.requests().filter(r => r.path.endsWith('/revoke-token'))).toHaveLength(1)
    expect(existsSync(join(work, 'state.json'))).toBe(false)
    expect(existsSync(join(locked, 'tunnel.env'))).toBe(false)
  })

  it('a failure at the service: exit 1, nothing written, no state file', async () => {
    const ran = await cli(['provision'], { SVC_PROJECT: 'no-such-project' })
    expect(ran.code).toBe(1)
    expect(ran.stderr).toEqual([
      expect.stringMatching(/^Error: Project "no-such-project" was not found/)
    ])
    expect(existsSync(join(work, 'tunnel.env'))).toBe(false)
    expect(existsSync(stateFile())).toBe(false)
  })

  it('refuses --ttl-minutes with ssh-key, whose lifetime is whole days: exit 1, nothing sent', async () => {
    const ran = await cli(
      ['provision', '--credential', 'ssh-key', '--ttl-minutes', '5', '--client-id', 'ci-user'],
      { SVC_INPUT_TUNNEL_HOST: 'tunnel.example.test' }
    )
    expect(ran.code).toBe(1)
    expect(ran.stderr).toEqual([expect.stringMatching(/^Error: --ttl-minutes /)])
    expect(service.requests()).toEqual([])
    expect(existsSync(join(work, 'tunnel.env'))).toBe(false)
    expect(existsSync(stateFile())).toBe(false)
  })

  it('an option the CLI reads itself that is wrong: exit 1, named, nothing sent', async () => {
    const ran = await cli(['provision', '--work-dir', join(work, 'missing')])
    expect(ran.code).toBe(1)
    expect(ran.stderr[0]).toMatch(
      /^Error: --work-dir is .*missing, which is not an existing directory/
    )
    expect(service.requests()).toEqual([])
  })
})

describe('revoke', () => {
  it('revokes, deletes its files, and leaves an env file it did not write', async () => {
    const provisioned = await cli(['provision'])
    const user = userIn(provisioned)
    const revoked = await cli(['revoke'])
    expect(revoked.code).toBe(0)
    expect(statusOf(user)).toBe('revoked')
    expect(existsSync(stateFile())).toBe(false)
    writeFileSync(join(work, 'tunnel.env'), 'MINE=1\n')
    const again = await cli(['revoke'])
    expect(again.stderr).toEqual([
      `Warning: ${join(work, 'tunnel.env')} was not written by tunnel-credentials, so it was left in place.`
    ])
    expect(readFileSync(join(work, 'tunnel.env'), 'utf8')).toBe('MINE=1\n')
  })

  it('deletes the outputs file it wrote (it holds the token), and no other', async () => {
    const outputs = join(work, 'outputs.json')
    expect((await cli(['provision', '--outputs-file', outputs])).code).toBe(0)
    expect((await cli(['revoke', '--outputs-file', outputs])).code).toBe(0)
    expect(existsSync(outputs)).toBe(false)
    writeFileSync(outputs, 'not json')
    expect((await cli(['revoke', '--outputs-file', outputs])).code).toBe(0)
    expect(readFileSync(outputs, 'utf8')).toBe('not json')
  })

  it('leaves a foreign state file alone and revokes nothing; exit 1 only when asked', async () => {
    writeFileSync(stateFile(), '[]')
    const warned = await cli(['revoke'])
    expect(warned.code).toBe(0)
    expect(warned.stderr).toEqual([
      `Warning: ${stateFile()} (--state-file) is not a tunnel-credentials state file, so it was left alone and nothing was revoked.`
    ])
    expect(readFileSync(stateFile(), 'utf8')).toBe('[]')
    expect(service.requests()).toEqual([])
  })

  it('with another --credential than provision: exit 1 naming the recorded kind, and still revoked', async () => {
    const user = userIn(await cli(['provision']))
    const ran = await cli(['revoke', '--credential', 'ssh-key'])
    expect(ran.code).toBe(1)
    expect(ran.stderr).toEqual([expect.stringMatching(/^Error: .*"cicd".*--credential/)])
    // Nothing is left alive, and nothing is left to retry.
    expect(statusOf(user)).toBe('revoked')
    expect(existsSync(stateFile())).toBe(false)
    expect(existsSync(join(work, 'tunnel.env'))).toBe(false)
  })
})

describe('run', () => {
  it('runs the command with the variables, exits with its code, and revokes', async () => {
    const ran = await cli(['run', '--', 'sh', '-c', 'test -n "$SVC_TUNNEL_TOKEN" && exit 4'])
    expect(ran.code).toBe(4)
    expect(statusOf(userIn(ran))).toBe('revoked')
    expect(existsSync(join(work, 'tunnel.env'))).toBe(false)
    expect(existsSync(stateFile())).toBe(false)
  })

  it('a command that cannot start: exit 127, one error naming it, and still revoked', async () => {
    const ran = await cli(['run', '--', join(work, 'no-such-program')])
    expect(ran.code).toBe(127)
    expect(ran.stderr).toEqual([
      `Error: could not start ${join(work, 'no-such-program')}: no such command (check its name and PATH).`
    ])
    expect(statusOf(userIn(ran))).toBe('revoked')
  })

  it('refuses to run over what an earlier provision left, and runs nothing', async () => {
    expect((await cli(['provision'])).code).toBe(0)
    const marker = join(work, 'ran')
    const ran = await cli(['run', '--', 'touch', marker])
    expect(ran.code).toBe(1)
    expect(ran.stderr[0]).toMatch(/records a credential or tunnel that was never revoked/)
    expect(existsSync(marker)).toBe(false)
    expect((await cli(['revoke'])).code).toBe(0)
  })

  it('a failed provision runs nothing', async () => {
    const marker = join(work, 'ran')
    const ran = await cli(['run', '--', 'touch', marker], { SVC_PROJECT: '' })
    expect(ran.code).toBe(1)
    expect(existsSync(marker)).toBe(false)
  })

  it('a revoke that fails with --fail-on-revoke-error turns a success into exit 1', async () => {
    service.injectFault({ kind: '500', endpoint: 'revoke-token', count: 5 })
    const ran = await cli(['run', '--fail-on-revoke-error', '--max-attempts', '1', '--', 'true'])
    expect(ran.code).toBe(1)
    expect(ran.stderr.at(-1)).toMatch(/^Error: Could not revoke the tunnel token of user \w+: /)
    // The record stays, so a revoke in a cleanup step can retry.
    expect(existsSync(stateFile())).toBe(true)
    service.resetFaults()
    expect((await cli(['revoke'])).code).toBe(0)
    expect(existsSync(stateFile())).toBe(false)
  })
})

/**
 * A tunnel record as provision --expose (or run) leaves it in the state file, for a stand-in
 * process whose command line ends with the tunnel's folder, as the keeper's does. `running`
 * false: the process has ended by itself, leaving `stats` as its record.
 */
async function recordTunnel(
  workDir: string,
  { running, stats }: { running: boolean; stats?: Record<string, unknown> }
): Promise<{ pid: number; dir: string; child: ChildProcess }> {
  const dir = mkdtempSync(join(workDir, 'tunnel-'))
  writeFileSync(join(dir, 'tunnel.log'), 'a line of the tunnel log\n')
  const script = running
    ? 'process.on("SIGTERM", () => process.exit(0)); setInterval(() => {}, 1000)'
    : ''
  const child = spawn(process.execPath, ['-e', script, dir])
  if (running) await new Promise(resolve => setTimeout(resolve, 300))
  else await new Promise(resolve => child.once('exit', resolve))
  const pid = child.pid!
  if (stats) writeFileSync(join(dir, 'stats.json'), JSON.stringify({ pid, ...stats }))
  const startTime = running ? startTimeOf(pid) : '1'
  const content = JSON.parse(readFileSync(stateFile(), 'utf8'))
  content.values.tunnel = JSON.stringify({
    pid,
    dir,
    dirId: directoryId(dir),
    startTime,
    started: true
  })
  writeFileSync(stateFile(), JSON.stringify(content))
  return { pid, dir, child }
}

/** What a keeper records when it ends by itself at its end time (--tunnel-max-minutes). */
const endedByItself = {
  startedAt: '2026-11-23T10:00:00.000Z',
  readyAt: '2026-11-23T10:00:01.000Z',
  updatedAt: '2026-11-23T10:15:00.000Z',
  state: 'ended',
  reconnects: 0,
  connections: 2,
  bytesIn: 10,
  bytesOut: 20,
  localErrors: 0,
  endedAt: '2026-11-23T10:15:00.000Z',
  endReason: 'it reached its end time 2026-11-23T10:15:00.000Z (its longest life)'
}

describe('revoke uses the kind the state file records', () => {
  const sshKey = () => [
    '--credential',
    'ssh-key',
    '--client-id',
    'ci-runner-7',
    '--tunnel-host',
    service.tunnelHost
  ]
  // The job's variables, the same for both commands, as a CI system gives them.
  const jobEnv = () => ({ SVC_WORK_DIR: work })
  /** The key provision uploaded, and its private half on disk. */
  async function provisionKey(): Promise<{ id: string; keyFile: string }> {
    const ran = await cli(['provision', ...sshKey()], jobEnv())
    expect(ran.code).toBe(0)
    const keyFile = /^SVC_TUNNEL_KEY_FILE='(.*)'$/m.exec(
      readFileSync(join(work, 'tunnel.env'), 'utf8')
    )![1]
    expect(existsSync(keyFile)).toBe(true)
    return { id: service.sshKeys().at(-1)!.id, keyFile }
  }
  const keyStatus = (id: string) => service.sshKeys().find(key => key.id === id)?.status

  it('a plain revoke after provision --credential ssh-key revokes the key and deletes its private half', async () => {
    const { id, keyFile } = await provisionKey()
    const revoked = await cli(['revoke'], jobEnv())
    expect(revoked.code).toBe(0)
    expect(keyStatus(id)).toBe('revoked')
    expect(existsSync(keyFile)).toBe(false)
    expect(existsSync(stateFile())).toBe(false)
  })

  it('another --credential at revoke: exit 1 naming the recorded kind, and nothing left alive', async () => {
    const { id, keyFile } = await provisionKey()
    const revoked = await cli(['revoke', '--credential', 'cicd'], jobEnv())
    expect(revoked.code).toBe(1)
    expect(revoked.stderr).toEqual([expect.stringMatching(/^Error: .*"ssh-key"/)])
    expect(keyStatus(id)).toBe('revoked')
    expect(existsSync(keyFile)).toBe(false)
  })

  it('SVC_CREDENTIAL naming a kind nobody revokes does not keep a token alive', async () => {
    const user = userIn(await cli(['provision']))
    const revoked = await cli(['revoke'], { SVC_CREDENTIAL: 'free' })
    expect(revoked.code).toBe(1)
    expect(revoked.stderr).toEqual([expect.stringMatching(/^Error: .*"cicd".*SVC_CREDENTIAL/)])
    expect(statusOf(user)).toBe('revoked')
  })
})

describe('revoke does everything it can, whatever is missing', () => {
  it('the work folder is gone: the tunnel process is stopped and the token revoked', async () => {
    const jobs = join(work, 'jobs')
    mkdirSync(jobs)
    const env = { SVC_WORK_DIR: jobs }
    const user = userIn(await cli(['provision'], env))
    const { pid, dir, child } = await recordTunnel(jobs, { running: true })
    try {
      rmSync(jobs, { recursive: true })
      const revoked = await cli(['revoke'], env)
      expect(revoked.code).toBe(0)
      expect(lookUpProcess(pid).state).toBe('gone')
      expect(statusOf(user)).toBe('revoked')
      // What could not be used is said; nothing is left to retry.
      expect(revoked.stderr).toEqual([expect.stringMatching(/^Warning: /)])
      expect(revoked.stderr[0]).toContain(dir)
      expect(existsSync(stateFile())).toBe(false)
    } finally {
      child.kill('SIGKILL')
    }
  })

  it('a folder at the env file path: the tunnel process is stopped and the token revoked', async () => {
    const user = userIn(await cli(['provision'], { SVC_WORK_DIR: work }))
    const { pid, child } = await recordTunnel(work, { running: true })
    try {
      rmSync(join(work, 'tunnel.env'))
      mkdirSync(join(work, 'tunnel.env'))
      const revoked = await cli(['revoke'], { SVC_WORK_DIR: work })
      expect(revoked.code).toBe(0)
      expect(lookUpProcess(pid).state).toBe('gone')
      expect(statusOf(user)).toBe('revoked')
      expect(existsSync(stateFile())).toBe(false)
    } finally {
      child.kill('SIGKILL')
    }
  })

  it('a folder at the state file path: exit 1 naming it, and the env file (it holds the token) goes', async () => {
    expect((await cli(['provision'])).code).toBe(0)
    rmSync(stateFile())
    mkdirSync(stateFile())
    const revoked = await cli(['revoke'])
    expect(revoked.code).toBe(1)
    expect(revoked.stderr).toEqual([expect.stringContaining(stateFile())])
    expect(existsSync(join(work, 'tunnel.env'))).toBe(false)
  })
})

describe('revoke removes a tunnel folder only once its own process is proven gone', () => {
  /** A real tunnel-XXXXXX folder whose files someone else wrote, named by the state with `pid`. */
  async function foreignFolder(pid: number, startTime: string | undefined) {
    expect((await cli(['provision'], { SVC_WORK_DIR: work })).code).toBe(0)
    const dir = mkdtempSync(join(work, 'tunnel-'))
    const files = { 'tunnel.log': 'their log\n', 'stats.json': '{"theirs":true}\n', stop: 'no\n' }
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
    const content = JSON.parse(readFileSync(stateFile(), 'utf8'))
    content.values.tunnel = JSON.stringify({
      pid,
      dir,
      dirId: directoryId(dir),
      startTime,
      started: true
    })
    writeFileSync(stateFile(), JSON.stringify(content))
    return { dir, files }
  }
  async function expectUntouched(pid: number, startTime: string | undefined) {
    const { dir, files } = await foreignFolder(pid, startTime)
    const revoked = await cli(['revoke'], { SVC_WORK_DIR: work })
    expect(revoked.code).toBe(0)
    for (const [name, text] of Object.entries(files)) {
      expect(readFileSync(join(dir, name), 'utf8')).toBe(text)
    }
    expect(revoked.stderr).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^Warning: The tunnel's folder ${dir} was left as it is, .*is running and is not the tunnel process`
        )
      )
    )
  }

  it('keeps the directory while its process runs', async () => {
    // A live process that is not the keeper: its command line does not end with the folder.
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'])
    try {
      await new Promise(resolve => setTimeout(resolve, 300))
      await expectUntouched(other.pid!, startTimeOf(other.pid!))
      expect(lookUpProcess(other.pid!).state).toBe('running')
    } finally {
      other.kill('SIGKILL')
    }
  })

  it('a state naming pid 1 and a real folder of foreign files: nothing is deleted, with a warning', async () => {
    await expectUntouched(1, '1')
  })

  it('a state naming an ended pid and a folder with no record of it: nothing is deleted', async () => {
    const ended = spawn(process.execPath, ['-e', ''])
    await new Promise(resolve => ended.once('exit', resolve))
    const { dir, files } = await foreignFolder(ended.pid!, '1')
    const revoked = await cli(['revoke'], { SVC_WORK_DIR: work })
    expect(revoked.code).toBe(0)
    expect(readdirSync(dir).sort()).toEqual(Object.keys(files).sort())
    expect(revoked.stderr).toContainEqual(
      expect.stringMatching(/holds no record of the tunnel process \d+, so nothing proves/)
    )
  })
})

describe('a tunnel leaves nothing behind', () => {
  it('revoke removes the folder of a tunnel process killed while it wrote its record', async () => {
    const env = { SVC_WORK_DIR: work }
    expect((await cli(['provision'], env)).code).toBe(0)
    const { dir } = await recordTunnel(work, { running: false, stats: endedByItself })
    // Killed between writing the record's temporary file and renaming it.
    writeFileSync(join(dir, 'stats.json.tmp'), '{"pid": 1')
    expect((await cli(['revoke'], env)).code).toBe(0)
    expect(existsSync(dir)).toBe(false)
  })
})

describe('revoke clears the state file once everything it records is finished', () => {
  /** Revoke, then what a user checks: the token revoked, no state file, a next provision that works. */
  async function expectFinished(revoked: Ran, user: string, env: Record<string, string> = {}) {
    expect(revoked.code).toBe(0)
    expect(statusOf(user)).toBe('revoked')
    expect(existsSync(stateFile())).toBe(false)
    const next = await cli(['provision'], env)
    expect(next.code).toBe(0)
    expect((await cli(['revoke'], env)).code).toBe(0)
  }

  it('after the tunnel ended by itself at --tunnel-max-minutes', async () => {
    const env = { SVC_WORK_DIR: work }
    const user = userIn(await cli(['provision', '--tunnel-max-minutes', '15'], env))
    const { dir } = await recordTunnel(work, { running: false, stats: endedByItself })
    const revoked = await cli(['revoke'], env)
    // It is said (the tunnel was not up the whole job), and does not keep the record.
    expect(revoked.stderr).toEqual([expect.stringMatching(/^Warning: /)])
    expect(existsSync(dir)).toBe(false)
    await expectFinished(revoked, user, env)
  })

  it('after run was killed with kill -9 (the tunnel ended with it)', async () => {
    const env = { SVC_WORK_DIR: work }
    const user = userIn(await cli(['provision'], env))
    // What run leaves after kill -9: its record, and a tunnel that ended when run's pid went.
    await recordTunnel(work, {
      running: false,
      stats: { ...endedByItself, endReason: 'the process it watches (pid 4242) ended' }
    })
    await expectFinished(await cli(['revoke'], env), user, env)
  })

  it('when the state names another base URL than the option (a warning; the revoke succeeded)', async () => {
    const user = userIn(await cli(['provision']))
    const content = JSON.parse(readFileSync(stateFile(), 'utf8'))
    const credential = JSON.parse(content.values.credential)
    content.values.credential = JSON.stringify({
      ...credential,
      baseUrl: 'http://elsewhere.example.test/functions/v1'
    })
    writeFileSync(stateFile(), JSON.stringify(content))
    const revoked = await cli(['revoke'])
    expect(revoked.stderr).toEqual([expect.stringMatching(/^Warning: .*elsewhere\.example\.test/)])
    await expectFinished(revoked, user)
  })

  it('when a warning says what could not be tidied (a file of someone else in the tunnel folder)', async () => {
    const env = { SVC_WORK_DIR: work }
    const user = userIn(await cli(['provision'], env))
    const { pid, dir } = await recordTunnel(work, { running: true })
    writeFileSync(join(dir, 'notes.txt'), 'mine')
    const revoked = await cli(['revoke'], env)
    expect(revoked.stderr).toEqual([expect.stringMatching(new RegExp(`^Warning: .*${dir}`))])
    expect(lookUpProcess(pid).state).toBe('gone')
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine')
    await expectFinished(revoked, user, env)
  })

  it('keeps it while a tunnel process may be alive, and a later revoke retries', async () => {
    const env = { SVC_WORK_DIR: work }
    const user = userIn(await cli(['provision'], env))
    // A record without the start time: no proof, so no signal, and the process may live on.
    const { pid, child } = await recordTunnel(work, { running: true })
    const content = JSON.parse(readFileSync(stateFile(), 'utf8'))
    const { startTime: _unproven, ...tunnel } = JSON.parse(content.values.tunnel)
    content.values.tunnel = JSON.stringify(tunnel)
    writeFileSync(stateFile(), JSON.stringify(content))
    try {
      const first = await cli(['revoke'], env)
      expect(first.code).toBe(0)
      expect(statusOf(user)).toBe('revoked')
      expect(lookUpProcess(pid).state).toBe('running')
      expect(existsSync(stateFile())).toBe(true)
      expect((await cli(['provision'], env)).code).toBe(1)
      child.kill('SIGKILL')
      await new Promise(resolve => child.once('exit', resolve))
      expect((await cli(['revoke'], env)).code).toBe(0)
      expect(existsSync(stateFile())).toBe(false)
    } finally {
      child.kill('SIGKILL')
    }
  })
})
