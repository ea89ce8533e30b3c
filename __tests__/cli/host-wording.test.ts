/**
 * The core speaks to two hosts: what the CLI prints on its failure paths must not send a user
 * looking for a GitHub "post step", an "action" or an "api-key secret" they do not have. Here the
 * wording is the point, so lines are read: the commands run in this process against the local
 * service, through main() as bin.ts calls it, over paths that print the core's messages.
 */
import { mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { main } from '../../src/cli/index.js'
import { startCredentialService, type RunningService } from '../../service/server.js'

const GITHUB_ONLY_WORDS = /post step|this action|api-key secret/i

let service: RunningService
let work: string
beforeAll(async () => (service = await startCredentialService()))
afterAll(() => service.close())
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'cli-wording-'))
  service.resetFaults()
})
afterEach(() => rmSync(work, { recursive: true, force: true }))

interface Ran {
  code: number
  lines: string[]
  stderr: string[]
}

async function cli(args: string[], extra: Record<string, string | undefined> = {}): Promise<Ran> {
  const lines: string[] = []
  const stderr: string[] = []
  const env = {
    PATH: process.env.PATH,
    SVC_API_KEY: service.seed.provisionKey,
    SVC_BASE_URL: service.baseUrl,
    SVC_PROJECT: service.seed.project,
    SVC_VARIABLES_FILE: join(work, 'tunnel.env'),
    SVC_WORK_DIR: work,
    ...extra
  }
  const code = await main(args, env, {
    stdout: line => lines.push(line),
    stderr: line => (lines.push(line), stderr.push(line))
  })
  return { code, lines, stderr }
}

const SSH_KEY = {
  SVC_CREDENTIAL: 'ssh-key',
  SVC_CLIENT_ID: 'ci-runner-7',
  SVC_INPUT_TUNNEL_HOST: 'tunnel.example.test'
}

/** Runs the steps of one failure path; each must print at least one warning or error. */
async function printed(...steps: (() => Promise<Ran>)[]): Promise<string[]> {
  const lines: string[] = []
  for (const step of steps) {
    const ran = await step()
    expect(ran.stderr.length).toBeGreaterThan(0)
    lines.push(...ran.lines)
  }
  return lines
}

const hostWords = (lines: string[]) => lines.filter(line => GITHUB_ONLY_WORDS.test(line))

describe('the CLI names no GitHub-only step, action or secret on its failure paths', () => {
  it('an API key the service rejects', async () => {
    const lines = await printed(() => cli(['provision'], { SVC_API_KEY: `sk_${'0'.repeat(64)}` }))
    expect(hostWords(lines)).toEqual([])
  })

  it('revoke without an API key, and revoke towards another base URL', async () => {
    expect((await cli(['provision'])).code).toBe(0)
    const lines = await printed(
      () => cli(['revoke'], { SVC_API_KEY: '' }),
      () =>
        cli(['revoke', '--max-attempts', '1'], { SVC_BASE_URL: 'http://127.0.0.1:9/functions/v1' })
    )
    expect(hostWords(lines)).toEqual([])
    expect((await cli(['revoke'])).code).toBe(0)
  })

  it('an answer provision cannot use, whose revoke fails too', async () => {
    service.injectFault({
      kind: 'hostile',
      endpoint: 'credential-provision',
      override: { tunnel_host: 'bad host' }
    })
    service.injectFault({ kind: '500', endpoint: 'revoke-token', count: 5 })
    const lines = await printed(() => cli(['provision', '--max-attempts', '1']))
    expect(lines.some(line => /^Could not revoke .* yet/.test(line))).toBe(true)
    expect(hostWords(lines)).toEqual([])
    service.resetFaults()
    expect((await cli(['revoke'])).code).toBe(0)
  })

  it("an SSH key revoked with another account's key", async () => {
    expect((await cli(['provision'], SSH_KEY)).code).toBe(0)
    const lines = await printed(() =>
      cli(['revoke'], { ...SSH_KEY, SVC_API_KEY: service.seed.secondOwnerKey })
    )
    expect(hostWords(lines)).toEqual([])
    expect((await cli(['revoke'], SSH_KEY)).code).toBe(0)
  })

  it('an SSH key whose folder someone replaced with a link', async () => {
    expect((await cli(['provision'], SSH_KEY)).code).toBe(0)
    const keyFile = /^SVC_TUNNEL_KEY_FILE='(.*)'$/m.exec(
      readFileSync(join(work, 'tunnel.env'), 'utf8')
    )![1]
    const folder = dirname(keyFile)
    renameSync(folder, `${folder}-moved`)
    symlinkSync(`${folder}-moved`, folder)
    const lines = await printed(() => cli(['revoke'], SSH_KEY))
    expect(hostWords(lines)).toEqual([])
  })
})
