/**
 * `--share` on the command line, in this process through main() as bin.ts calls it, against the
 * local credential service: jobs of one GitLab pipeline (their own folders, the same
 * CI_PROJECT_PATH and CI_PIPELINE_ID), and what each command writes, exports and revokes.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startCredentialService, type RunningService } from '../../service/server.js'
import { runCliInProcess, type InProcessRun } from '../helpers/in-process-cli.js'
import { loadEnvFile } from './cli-job.js'

/** Nothing the CLI printed holds a secret. */
function expectNothingSecret(ran: InProcessRun, secrets: string[]): void {
  for (const secret of secrets) {
    expect(ran.stdout.join('\n')).not.toContain(secret)
    expect(ran.stderr.join('\n')).not.toContain(secret)
  }
}

let service: RunningService
const folders: string[] = []
beforeAll(async () => (service = await startCredentialService()))
afterAll(() => service.close())
beforeEach(() => service.clearRequests())
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

const PIPELINE = {
  GITLAB_CI: 'true',
  CI_PROJECT_PATH: 'acme/web-shop',
  CI_PIPELINE_ID: '4100',
  CI_JOB_ID: '1'
}

/** A job of the pipeline: its own folder, the service's variables, and the CI's. */
function job(ci: Record<string, string> = PIPELINE) {
  const dir = mkdtempSync(join(tmpdir(), 'cli-share-'))
  folders.push(dir)
  const base = {
    PATH: process.env.PATH,
    SVC_API_KEY: service.seed.provisionKey,
    SVC_BASE_URL: service.baseUrl,
    SVC_PROJECT: service.seed.project,
    SVC_VARIABLES_FILE: join(dir, 'tunnel.env'),
    SVC_SHARED_CREDENTIAL_FILE: join(dir, 'shared.env'),
    ...ci
  }
  return {
    dir,
    run: (args: string[], extra: Record<string, string | undefined> = {}) =>
      runCliInProcess(args, { ...base, ...extra })
  }
}

const statusOf = (user: string) => service.tokens().find(t => t.tunnel_user === user)?.status
const userIn = (lines: string[]) => /Provisioned tunnel user (\w+)/.exec(lines.join('\n'))![1]
const provisions = () => service.requests().filter(r => r.path.includes('credential-provision'))
const revokes = () => service.requests().filter(r => r.path.includes('revoke'))

/** The setup job: provision --share create; the sealed credential it wrote, and its user. */
async function setUp(setup = job()) {
  const ran = await setup.run(['provision', '--share', 'create'], { SVC_TTL_MINUTES: '30' })
  expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: [] })
  const text = readFileSync(join(setup.dir, 'shared.env'), 'utf8')
  const sealed = /^SVC_SHARED_CREDENTIAL=(ptc1\.[A-Za-z0-9_.-]+)\n$/.exec(text)![1]
  return { setup, ran, sealed, user: userIn(ran.stdout) }
}

describe('provision --share create, in the setup job', () => {
  it('writes SVC_SHARED_CREDENTIAL alone to shared.env, and nothing of it to tunnel.env', async () => {
    const { setup, ran, sealed } = await setUp()
    const variables = readFileSync(join(setup.dir, 'tunnel.env'), 'utf8')
    expect(variables).toContain('SVC_TUNNEL_TOKEN=')
    expect(variables).not.toContain('SVC_SHARED_CREDENTIAL')
    expect(variables).not.toContain(sealed)
    expect(statSync(join(setup.dir, 'shared.env')).mode & 0o777).toBe(0o600)
    expect(ran.stdout.at(-1)).toBe(
      `Wrote SVC_SHARED_CREDENTIAL to ${join(setup.dir, 'shared.env')} for the run's other jobs (sealed: it opens only with the API key).`
    )
    expect(provisions()).toHaveLength(1)
  })

  it('its own revoke leaves the credential to the run: no request, the token still active', async () => {
    const { setup, user } = await setUp()
    service.clearRequests()
    const ran = await setup.run(['revoke'], { SVC_SHARE: 'create' })
    expect(ran.code).toBe(0)
    expect(revokes()).toEqual([])
    expect(statusOf(user)).toBe('active')
    expect(existsSync(join(setup.dir, 'tunnel.env'))).toBe(false)
    expect(existsSync(join(setup.dir, '.tunnel-credentials.json'))).toBe(false)
    // The other jobs still need it (GitLab collects the dotenv report after after_script).
    expect(existsSync(join(setup.dir, 'shared.env'))).toBe(true)
  })

  it('removes the shared.env an earlier run left, when this one fails to create', async () => {
    const { setup } = await setUp()
    expect((await setup.run(['revoke'])).code).toBe(0)
    // The next pipeline, in the same folder: its setup job fails before it shares anything.
    const next = await setup.run(['provision', '--share', 'create'], { CI_PIPELINE_ID: '4200' })
    expect(next.code).toBe(1)
    expect(next.stderr.join('\n')).toContain('--ttl-minutes')
    expect(existsSync(join(setup.dir, 'shared.env'))).toBe(false)
    expect(readdirSync(setup.dir)).toEqual([])
  })

  it('writes no shared.env without --share create', async () => {
    const plain = job()
    expect((await plain.run(['provision'])).code).toBe(0)
    expect(existsSync(join(plain.dir, 'shared.env'))).toBe(false)
    expect((await plain.run(['revoke'])).code).toBe(0)
  })

  it('never replaces a file at shared.env it did not write: exit 1, nothing sent', async () => {
    const setup = job()
    const mine = 'DEPLOY_TARGET=staging\n'
    writeFileSync(join(setup.dir, 'shared.env'), mine)
    const ran = await setup.run(['provision', '--share', 'create'], { SVC_TTL_MINUTES: '30' })
    expect(ran.code).toBe(1)
    expect(ran.stderr).toEqual([
      `Error: ${join(setup.dir, 'shared.env')} (SVC_SHARED_CREDENTIAL_FILE) exists and was not written by tunnel-credentials, which never replaces such a file. Move it away, or choose another SVC_SHARED_CREDENTIAL_FILE.`
    ])
    expect(service.requests()).toEqual([])
    expect(readFileSync(join(setup.dir, 'shared.env'), 'utf8')).toBe(mine)
  })

  it('revokes at once, and leaves no file, when shared.env cannot be written', async () => {
    const setup = job()
    const handover = join(setup.dir, 'handover')
    mkdirSync(handover)
    const running = setup.run(['provision', '--share', 'create'], {
      SVC_TTL_MINUTES: '30',
      SVC_OUTPUTS_FILE: join(setup.dir, 'outputs.json'),
      SVC_SHARED_CREDENTIAL_FILE: join(handover, 'shared.env')
    })
    // Checked before the first request; gone by the hand-over (the command waits on the service).
    rmSync(handover, { recursive: true })
    const ran = await running
    expect(ran.code).toBe(1)
    expect(ran.stderr.join('\n')).toContain('revoked')
    expect(provisions()).toHaveLength(1)
    expect(statusOf(service.tokens().at(-1)!.tunnel_user)).toBe('revoked')
    expect(readdirSync(setup.dir)).toEqual([])
  })
})

/** The variables a job's tunnel.env gives the shell that loads it. */
const variablesOf = (dir: string) => loadEnvFile(join(dir, 'tunnel.env'))

describe('provision --share use, in each job that needs the tunnel', () => {
  it('exports and outputs what provisioning did, from SVC_SHARED_CREDENTIAL, with no request', async () => {
    const { setup, sealed, user } = await setUp(job())
    // Another job of the pipeline: its own folder and job id, the setup job's dotenv report.
    const other = job({ ...PIPELINE, CI_JOB_ID: '2' })
    const ran = await other.run(['provision', '--share', 'use'], {
      SVC_SHARED_CREDENTIAL: sealed,
      SVC_OUTPUTS_FILE: join(other.dir, 'outputs.json')
    })
    expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: [] })
    const used = { dir: other.dir, ran }
    expect(variablesOf(used.dir)).toEqual(variablesOf(setup.dir))
    expect(variablesOf(used.dir).SVC_TUNNEL_USER).toBe(user)
    const outputs = JSON.parse(readFileSync(join(used.dir, 'outputs.json'), 'utf8'))
    expect(outputs).toMatchObject({ credential: 'cicd', 'tunnel-user': user })
    expect(outputs['shared-credential'] ?? '').toBe('')
    expect(provisions()).toHaveLength(1)
    expect(existsSync(join(used.dir, 'shared.env'))).toBe(false)
    expectNothingSecret(used.ran, [
      service.seed.provisionKey,
      variablesOf(setup.dir).SVC_TUNNEL_TOKEN
    ])
  })

  it('its revoke stops nothing it did not start and leaves the credential: the stand-in lists it active', async () => {
    const { sealed, user } = await setUp()
    for (const share of ['use', undefined]) {
      const user2 = job({ ...PIPELINE, CI_JOB_ID: '3' })
      const env = { SVC_SHARED_CREDENTIAL: sealed, SVC_SHARE: share }
      expect((await user2.run(['provision', '--share', 'use'], env)).code).toBe(0)
      service.clearRequests()
      const ran = await user2.run(['revoke'], env)
      expect(ran.code).toBe(0)
      expect(ran.stderr).toEqual([])
      expect(revokes()).toEqual([])
      expect(statusOf(user)).toBe('active')
      expect(readdirSync(user2.dir)).toEqual([])
    }
  })

  it('refuses an empty SVC_SHARED_CREDENTIAL, naming the variable and where it comes from', async () => {
    const other = job({ ...PIPELINE, CI_JOB_ID: '5' })
    service.clearRequests()
    const ran = await other.run(['provision', '--share', 'use'], { SVC_SHARED_CREDENTIAL: '' })
    expect(ran.code).toBe(1)
    expect(ran.stderr).toEqual([
      'Error: --share is use, but SVC_SHARED_CREDENTIAL is empty, so there is nothing to open: the setup job shared nothing. ' +
        "Check that this job has the setup job in its needs and that SVC_SHARED_CREDENTIAL gets that job's shared-credential output: " +
        "on GitHub Actions ${{ needs.<setup job>.outputs.shared-credential }}, on GitLab CI the setup job's dotenv report (shared.env), which sets SVC_SHARED_CREDENTIAL in every job that needs it."
    ])
    expect(service.requests()).toEqual([])
    expect(readdirSync(other.dir)).toEqual([])
  })

  it('refuses a credential sealed for another pipeline: exit 1, one line, nothing written', async () => {
    const { sealed } = await setUp()
    const elsewhere = job({ ...PIPELINE, CI_PIPELINE_ID: '4101' })
    service.clearRequests()
    const ran = await elsewhere.run(['provision', '--share', 'use'], {
      SVC_SHARED_CREDENTIAL: sealed
    })
    expect(ran.code).toBe(1)
    expect(ran.stderr).toEqual([
      "Error: The shared credential was sealed for another run, not run 4101 of acme/web-shop. Each run shares its own credential: use the shared-credential output of this run's setup job."
    ])
    expect(service.requests()).toEqual([])
    expect(readdirSync(elsewhere.dir)).toEqual([])
  })

  it('refuses a credential sealed for another project path', async () => {
    const { sealed } = await setUp()
    const fork = job({ ...PIPELINE, CI_PROJECT_PATH: 'someone/web-shop' })
    const ran = await fork.run(['provision', '--share', 'use'], { SVC_SHARED_CREDENTIAL: sealed })
    expect(ran.code).toBe(1)
    expect(ran.stderr.join('\n')).toContain('sealed for another repository')
    expect(readdirSync(fork.dir)).toEqual([])
  })
})

describe('on GitHub Actions', () => {
  const RUN = {
    GITHUB_ACTIONS: 'true',
    GITHUB_REPOSITORY: 'octo/web-shop',
    GITHUB_RUN_ID: '4242',
    GITHUB_WORKSPACE: '/home/runner/work/web-shop/web-shop',
    RUNNER_TEMP: tmpdir()
  }

  it('binds to GITHUB_REPOSITORY and GITHUB_RUN_ID: another attempt opens it, another run does not', async () => {
    const { sealed, user } = await setUp(job({ ...RUN, GITHUB_RUN_ATTEMPT: '1' }))
    const rerun = job({ ...RUN, GITHUB_RUN_ATTEMPT: '2' })
    const used = await rerun.run(['provision', '--share', 'use'], { SVC_SHARED_CREDENTIAL: sealed })
    expect({ code: used.code, stderr: used.stderr }).toEqual({ code: 0, stderr: [] })
    expect(variablesOf(rerun.dir).SVC_TUNNEL_USER).toBe(user)
    const other = job({ ...RUN, GITHUB_RUN_ID: '4243' })
    const refused = await other.run(['provision', '--share', 'use'], {
      SVC_SHARED_CREDENTIAL: sealed
    })
    expect(refused.code).toBe(1)
    expect(refused.stderr.join('\n')).toContain('not run 4243 of octo/web-shop')
  })
})

describe('run --share use', () => {
  it("gives COMMAND the run's credential, and leaves it to the run when COMMAND ends", async () => {
    const { sealed, user } = await setUp()
    const runner = job({ ...PIPELINE, CI_JOB_ID: '5' })
    service.clearRequests()
    const seen = join(runner.dir, 'seen')
    const ran = await runner.run(
      ['run', '--share', 'use', '--', 'sh', '-c', 'printf %s "$SVC_TUNNEL_USER" > "$0"', seen],
      { SVC_SHARED_CREDENTIAL: sealed }
    )
    expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: [] })
    expect(readFileSync(seen, 'utf8')).toBe(user)
    // Without expose, only the token's state is asked for: nothing provisioned, nothing revoked.
    expect(service.requests().map(({ method, path }) => `${method} ${path}`)).toEqual([
      'GET /functions/v1/user-tokens-list'
    ])
    expect(statusOf(user)).toBe('active')
  })
})

describe('--help', () => {
  it('shows --share, --shared-credential and --shared-credential-file', async () => {
    const help = (await runCliInProcess(['--help'], {})).stdout.join('\n')
    expect(help).toContain('--share off|create|use|revoke')
    expect(help).toContain('--shared-credential SEALED')
    expect(help).toMatch(
      /--shared-credential-file PATH +with --share create, SVC_SHARED_CREDENTIAL=SEALED/
    )
  })
})

describe('revoke --share revoke, in the final job', () => {
  it('needs no state file: revokes the credential SVC_SHARED_CREDENTIAL names, once', async () => {
    const { sealed, user } = await setUp()
    const final = job({ ...PIPELINE, CI_JOB_ID: '9' })
    service.clearRequests()
    const ran = await final.run(['revoke', '--share', 'revoke'], { SVC_SHARED_CREDENTIAL: sealed })
    expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: [] })
    expect(ran.stdout).toContain(`Revoked the run's shared credential (tunnel user ${user}).`)
    expect(revokes()).toHaveLength(1)
    expect(statusOf(user)).toBe('revoked')
    expect(readdirSync(final.dir)).toEqual([])
    // Again (a retried final job): already gone is what was asked for.
    const again = await final.run(['revoke', '--share', 'revoke'], {
      SVC_SHARED_CREDENTIAL: sealed
    })
    expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 0, stderr: [] })
    expect(again.stdout.join('\n')).toContain('was already revoked or has expired')
  })

  it('succeeds with a notice, sending nothing, when the setup job shared nothing', async () => {
    const final = job()
    const ran = await final.run(['revoke', '--share', 'revoke'], { SVC_SHARED_CREDENTIAL: '' })
    expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: [] })
    expect(ran.stdout.some(line => line.startsWith('Notice: '))).toBe(true)
    expect(service.requests()).toEqual([])
  })

  it('refuses a credential of another pipeline, and revokes nothing', async () => {
    const { sealed, user } = await setUp()
    const other = job({ ...PIPELINE, CI_PIPELINE_ID: '4102' })
    service.clearRequests()
    const ran = await other.run(['revoke', '--share', 'revoke'], { SVC_SHARED_CREDENTIAL: sealed })
    expect(ran.code).toBe(1)
    expect(ran.stderr.join('\n')).toContain('sealed for another run')
    expect(revokes()).toEqual([])
    expect(statusOf(user)).toBe('active')
  })

  it('keeps every check of a plain revoke for a state file it finds: a foreign one is left alone', async () => {
    const { sealed, user } = await setUp()
    const final = job()
    const foreign = join(final.dir, '.tunnel-credentials.json')
    writeFileSync(foreign, '{"somebody": "else"}')
    const ran = await final.run(['revoke', '--share', 'revoke'], { SVC_SHARED_CREDENTIAL: sealed })
    expect(ran.code).toBe(0)
    expect(ran.stderr).toEqual([
      `Warning: ${foreign} (--state-file) is not a tunnel-credentials state file, so it was left alone and nothing was revoked.`
    ])
    expect(readFileSync(foreign, 'utf8')).toBe('{"somebody": "else"}')
    expect(statusOf(user)).toBe('revoked')
  })
})

describe('--share on a command the mode does not fit', () => {
  it('refuses provision --share revoke, names the command that does it, and sends nothing', async () => {
    const final = job()
    const ran = await final.run(['provision', '--share', 'revoke'], {
      SVC_SHARED_CREDENTIAL: 'ptc1.a.b.c.d'
    })
    expect(ran.code).toBe(1)
    expect(ran.stderr).toEqual([
      "Error: --share is revoke, which is for the run's final job: run tunnel-credentials revoke --share revoke there, which needs no state file."
    ])
    expect(service.requests()).toEqual([])
    expect(existsSync(join(final.dir, 'tunnel.env'))).toBe(false)
    expect(existsSync(join(final.dir, '.tunnel-credentials.json'))).toBe(false)
  })

  it('refuses run --share create (run revokes at its end) before COMMAND starts or a request goes', async () => {
    const setup = job()
    const marker = join(setup.dir, 'ran')
    const ran = await setup.run(['run', '--share', 'create', '--', 'touch', marker], {
      SVC_TTL_MINUTES: '30'
    })
    expect(ran.code).toBe(1)
    expect(ran.stderr).toEqual([
      "Error: --share is create, which leaves the credential to the run's other jobs, but run revokes what it provisions when COMMAND ends: use tunnel-credentials provision --share create in the setup job."
    ])
    expect(existsSync(marker)).toBe(false)
    expect(service.requests()).toEqual([])
  })
})

describe('--share where no run can be named', () => {
  const REFUSED =
    "Error: --share is create, but sharing works on GitHub Actions and GitLab CI, where every job sees the run's identity; set --share to off."

  it.each([
    ['Jenkins', { JENKINS_URL: 'https://ci.example/', JOB_NAME: 'web-shop', BUILD_NUMBER: '8' }],
    [
      'Buildkite',
      {
        BUILDKITE: 'true',
        BUILDKITE_BUILD_ID: 'b-1',
        BUILDKITE_JOB_ID: 'j-1',
        BUILDKITE_PIPELINE_SLUG: 'web-shop',
        BUILDKITE_BUILD_NUMBER: '8'
      }
    ],
    ['no CI system at all', {}]
  ])('is refused on %s: exit 1, one line, nothing sent or written', async (_case, ci) => {
    const elsewhere = job(ci)
    const ran = await elsewhere.run(['provision', '--share', 'create'], { SVC_TTL_MINUTES: '30' })
    expect(ran.code).toBe(1)
    expect(ran.stderr).toEqual([REFUSED])
    expect(service.requests()).toEqual([])
    expect(readdirSync(elsewhere.dir)).toEqual([])
  })

  it('warns which sign is at fault in a GitLab job with a GitHub flag left in it', async () => {
    const confused = job({ ...PIPELINE, GITHUB_ACTIONS: 'true' })
    const ran = await confused.run(['provision', '--share', 'create'], { SVC_TTL_MINUTES: '30' })
    expect(ran.stderr[0]).toBe(
      'Warning: tunnel-credentials cannot be sure which GitLab CI run this is, since GITHUB_ACTIONS (GitHub Actions) is set too, so the signs disagree; so nothing can be shared here.'
    )
    expect(ran.stderr.slice(1)).toEqual([REFUSED])
    expect(ran.code).toBe(1)
    expect(service.requests()).toEqual([])
  })
})
