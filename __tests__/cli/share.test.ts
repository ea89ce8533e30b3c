/**
 * `--share` on the command line, in this process through main() as bin.ts calls it, against the
 * local credential service: jobs of one GitLab pipeline (their own folders, the same
 * CI_PROJECT_PATH and CI_PIPELINE_ID), and what each command writes, exports and revokes.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startCredentialService, type RunningService } from '../../service/server.js'
import { runCliInProcess } from '../helpers/in-process-cli.js'

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
  it('warns which sign is at fault in a GitLab job with a GitHub flag left in it', async () => {
    const confused = job({ ...PIPELINE, GITHUB_ACTIONS: 'true' })
    const ran = await confused.run(['provision', '--share', 'create'], { SVC_TTL_MINUTES: '30' })
    expect(ran.stderr[0]).toBe(
      'Warning: tunnel-credentials cannot be sure which GitLab CI run this is, since GITHUB_ACTIONS (GitHub Actions) is set too, so the signs disagree; so nothing can be shared here.'
    )
  })
})
